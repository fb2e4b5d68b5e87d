#pragma once

// What an agent's supervisor (bailey's launcher as PID 1, errand-relay in a podman container)
// takes through a signalfd in its epoll loop: the agent's end, and the termination signals it
// passes on. Both run the relay in the same loop, so the signal handling is written once too.

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace errand::broker_relay {

// SIGCHLD and the termination signals (TERM, INT, HUP, QUIT).
sigset_t supervisor_signals();

// A signalfd for supervisor_signals(), added to epoll_fd under tag; the caller has blocked them.
// -1 with errno set and failed_step naming what failed.
int watch_supervisor_signals(int epoll_fd, std::uint64_t tag, std::string& failed_step);

// Reads everything the signalfd holds: a termination signal goes to forward, every ended child
// is reaped. The agent's wait status when it was among them.
std::optional<int> take_supervisor_signals(int signal_fd, pid_t agent,
                                           const std::function<void(int)>& forward);

}  // namespace errand::broker_relay
