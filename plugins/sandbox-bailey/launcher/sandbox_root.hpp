#pragma once

#include "plugins/sandbox-bailey/common/policy.hpp"

namespace errand::bailey::launcher {

// Builds the sandbox's filesystem from nothing and moves into it. Runs as root of the new user
// namespace inside the new mount and PID namespaces; on return "/" is a read-only tmpfs holding
// only what the policy binds, private /tmp and /dev/shm, a minimal /dev and a fresh /proc, and
// the host's root is no longer reachable. Any failure reports and exits.
void build_sandbox_root(const Policy& policy);

}  // namespace errand::bailey::launcher
