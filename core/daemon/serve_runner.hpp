#pragma once

// `errand serve`: the remote-run runner. It starts as `errand run` does as far as the sandbox
// (the same configuration, plugins, probe and refusal on an enforcement gap: start_steps.hpp),
// then serves jobs on runner.socket until SIGTERM or SIGINT. Its state is stateDir/runner/,
// with a lock of its own, so it runs beside `errand run` on one stateDir.

#include "core/daemon/run_environment.hpp"

#include <ostream>

namespace errand::daemon {

// The process exit code (exit_codes.hpp).
int serve_runner(const RunEnvironment& env, std::ostream& out);

}  // namespace errand::daemon
