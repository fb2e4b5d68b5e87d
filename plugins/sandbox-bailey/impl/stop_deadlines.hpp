#pragma once

// How long each step of stopping a bailey sandbox may take, past the session's grace, before it
// is escalated (common/stop_deadline.hpp): in one place, so the steps stay consistent.

#include <chrono>

namespace errand::bailey {

using namespace std::chrono_literals;

// After SIGKILL to the launcher and to every process in the session's cgroups, the kernel ends
// them at once and the launcher's report pipe closes; the cleanup after (cgroup removal, which
// itself gives up after about 2 s, and the run directory) is quick too. A loaded host has been
// seen to take well under a second for all of it, so this long means something holds the report
// pipe open or a process cannot die, and the wait for the pipe is abandoned.
inline constexpr std::chrono::milliseconds kEndAfterKillDeadline = 10s;

// The whole stop, past grace and both waits above: what it allows for the cleanup's own work
// before stop() returns without the sandbox's end rather than wait on the kernel for ever.
inline constexpr std::chrono::milliseconds kCleanupAllowance = 10s;

}  // namespace errand::bailey
