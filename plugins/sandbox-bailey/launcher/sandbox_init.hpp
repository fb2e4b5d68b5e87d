#pragma once

#include "plugins/sandbox-bailey/launcher/prepared.hpp"

namespace errand::bailey::launcher {

// PID 1 of the sandbox, once the host side has mapped its ids and put it in its cgroups: builds
// the root, starts the relay when the broker is the way out, forks and confines the agent, then
// reaps every process in the namespace, forwards termination signals to all of them and carries
// relay traffic until the agent exits. Reports the agent's end on the report pipe.
[[noreturn]] void run_sandbox_init(const Prepared& prepared);

}  // namespace errand::bailey::launcher
