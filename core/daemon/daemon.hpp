#pragma once

#include "core/daemon/run_environment.hpp"

#include <iosfwd>

namespace errand::daemon {

// `errand run`: load the configuration and plugins, take the state lock, create and probe the
// sandbox backend (refusing to start on a gap unless told otherwise), create the broker and the
// chat transport, then serve until SIGTERM or SIGINT while following edits of the configuration.
// Returns the process exit code (see exit_codes.hpp).
int run_daemon(const RunEnvironment& env, std::ostream& out);

}  // namespace errand::daemon
