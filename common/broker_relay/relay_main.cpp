// errand-relay SOCKET PROGRAM [ARGS...]
//
// The first process of a podman session under the broker: listens on 127.0.0.1:3128 inside the
// container's empty network namespace, starts PROGRAM (looked up on the container's PATH) as its
// child, and carries each connection to the broker's unix socket SOCKET until the agent exits;
// then exits as the agent did. Termination signals are passed on to the agent. Linked statically,
// since the image holds none of errand's libraries.

#include <signal.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "common/broker_relay/broker_relay.hpp"
#include "common/broker_relay/supervisor_signals.hpp"

namespace {

using errand::broker_relay::Relay;

constexpr std::uint64_t kSignalTag = 1;
// podman's own codes for a command that cannot be run, so the plugin reads both the same way.
constexpr int kNotRunnable = 126;
constexpr int kNotFound = 127;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "errand-relay: %s: %s\n", what.c_str(), std::strerror(errno));
  std::_Exit(kNotRunnable);
}

int exit_status_of(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : kNotRunnable;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: errand-relay BROKER_SOCKET PROGRAM [ARGS...]\n");
    return kNotRunnable;
  }
  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) die("epoll_create1");
  std::string failed_step;
  auto relay = Relay::listen(epoll_fd, argv[1], failed_step);
  if (!relay) die(failed_step);

  const sigset_t handled = errand::broker_relay::supervisor_signals();
  sigset_t previous;
  if (::sigprocmask(SIG_BLOCK, &handled, &previous) != 0) die("blocking signals");
  const int signal_fd =
      errand::broker_relay::watch_supervisor_signals(epoll_fd, kSignalTag, failed_step);
  if (signal_fd < 0) die(failed_step);

  const pid_t agent = ::fork();
  if (agent < 0) die("forking the agent");
  if (agent == 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::execvp(argv[2], argv + 2);
    const int e = errno;
    std::fprintf(stderr, "errand-relay: cannot run %s: %s\n", argv[2], std::strerror(e));
    std::_Exit(e == ENOENT ? kNotFound : kNotRunnable);
  }

  std::optional<int> agent_status;
  epoll_event events[64];
  while (!agent_status) {
    const int n = ::epoll_wait(epoll_fd, events, 64, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("epoll_wait");
    for (int i = 0; i < n; ++i) {
      const auto tag = events[i].data.u64;
      if (tag == kSignalTag) {
        agent_status = errand::broker_relay::take_supervisor_signals(
            signal_fd, agent, [agent](int sig) { ::kill(agent, sig); });
      } else if (relay->owns(tag)) {
        relay->on_event(tag, events[i].events);
      }
    }
  }
  relay.reset();
  return exit_status_of(*agent_status);
}
