#pragma once

#include "plugins/sandbox-bailey/launcher/prepared.hpp"

namespace errand::bailey::launcher {

// The last steps before the agent runs, in the forked child of the sandbox's PID 1: close every
// inherited fd but stdio, die with PID 1, cap file sizes, forbid new privileges, drop every
// capability, apply Landlock, load the syscall filter last, execve. A failure is written to
// exec_error_fd (close-on-exec, so silence means the agent started) and the child exits 127.
[[noreturn]] void exec_agent(const Prepared& prepared, int exec_error_fd);

}  // namespace errand::bailey::launcher
