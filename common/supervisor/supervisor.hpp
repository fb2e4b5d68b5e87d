#pragma once

// The loop every agent's supervisor runs inside its sandbox (bailey's launcher as the sandbox's
// PID 1, errand-guest-init in an Incus guest, errand-relay as a podman container's PID 1): the
// termination signals it is sent passed on, every child that ends reaped, other events (the broker
// relay's sockets, a helper's pidfd) handed to the caller, until the agent has ended. Standard
// library only and the header-only sdk::Result, so the static launchers link it.

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <functional>
#include <optional>
#include <string>

namespace errand::supervisor {

// SIGCHLD and the termination signals (TERM, INT, HUP, QUIT).
sigset_t supervisor_signals();

// A signalfd for supervisor_signals(), added to epoll_fd under tag; the caller has blocked them.
// The error names the step that failed and the system's reason.
sdk::Result<int> watch_supervisor_signals(int epoll_fd, std::uint64_t tag);

// Reads everything the signalfd holds: a termination signal goes to forward, every ended child
// is reaped. The agent's wait status when it was among them.
std::optional<int> take_supervisor_signals(int signal_fd, pid_t agent,
                                           const std::function<void(int)>& forward);

struct Supervision {
  int epoll_fd = -1;
  int signal_fd = -1;  // from watch_supervisor_signals, under signal_tag
  std::uint64_t signal_tag = 0;
  pid_t agent = -1;
  // A termination signal the supervisor was sent: to the agent, or to every process in the
  // sandbox.
  std::function<void(int)> forward;
  // Every event under another tag; may end the process (a helper the session cannot go on
  // without has ended).
  std::function<void(std::uint64_t tag, std::uint32_t events)> other;
};

// Runs the loop until the agent has ended, and returns its wait status; events that came in the
// same wake-up after the agent's end are left. An error names the errno of a failed epoll_wait.
sdk::Result<int> supervise_until_agent_ends(const Supervision& supervision);

}  // namespace errand::supervisor
