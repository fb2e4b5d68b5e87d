#pragma once

#include <string>

namespace errand::bailey::launcher {

// `errand-bailey run <policy.toml>`: reads the policy, joins the session's cgroups, creates the
// sandbox's first process in new user, mount, PID, UTS, IPC (and, unless the policy shares the
// host's, network) namespaces, maps its ids, wires pasta when asked, then releases it and
// waits: forwarding termination signals, killing the sandbox if the daemon goes away, and
// reporting how it ended.
int run_sandbox(const std::string& policy_path);

}  // namespace errand::bailey::launcher
