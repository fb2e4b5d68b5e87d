#pragma once

// `errand serve --connect`: what ssh runs on the runner's host. It finds runner.socket in the
// configuration, connects, and copies stdin to the socket and the socket to stdout until the
// runner closes. The runner names the caller by this process's credentials (SO_PEERCRED), and
// this process runs as the account ssh signed in: that is how remote callers are identified.

#include "core/daemon/run_environment.hpp"

namespace errand::daemon {

// 0 when the runner closed the connection, 2 when the configuration is refused or the socket
// cannot be reached (the message names it, on stderr), 1 when copying failed.
int bridge_to_runner(const RunEnvironment& env);

}  // namespace errand::daemon
