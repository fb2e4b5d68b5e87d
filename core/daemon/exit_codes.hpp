#pragma once

namespace errand::daemon {

// The exit codes of `errand run`, documented in docs/cli.md. A service manager should not
// restart the daemon after 2, 3 or 4: each needs an operator to change something first.
enum ExitCode : int {
  kExitStopped = 0,         // stopped by SIGTERM or SIGINT
  kExitRuntimeFailure = 1,  // failed while serving
  kExitRefused = 2,         // configuration, plugins or command line refused
  kExitEnforcementGap = 3,  // the sandbox backend cannot enforce everything configured
  kExitLockHeld = 4,        // another daemon serves this state directory
};

}  // namespace errand::daemon
