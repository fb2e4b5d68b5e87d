#pragma once

// What each process errand-guest-init forks (the relay and the agent) does first, so neither
// keeps the init's root, its blocked signals or its fds, and neither outlives it: incusd kills
// only the exec'd process, so a child that stayed would run on with nobody watching.

#include <sys/types.h>

#include <errand/sdk/result.hpp>

#include "plugins/sandbox-incus/guest/guest_account.hpp"

namespace errand::incus::guest {

// The fd a child reports on (close-on-exec) once prepare_child has run.
inline constexpr int kChildReportFd = 3;

// In a freshly forked child of init: report_fd moved to kChildReportFd and every fd above it
// closed (stdio stays), default signal handling with nothing blocked, the account's ids, then
// PR_SET_PDEATHSIG(SIGKILL) (after the ids, since changing them clears it) and a check that
// init had not already gone.
sdk::Result<void> prepare_child(int report_fd, const GuestAccount& account, pid_t init);

// Writes text to kChildReportFd; what a child says before it gives up.
void report_to_init(const std::string& text);

// Everything a child wrote on the read end of its report pipe until the pipe closed; closes it.
std::string read_child_report(int read_fd);

}  // namespace errand::incus::guest
