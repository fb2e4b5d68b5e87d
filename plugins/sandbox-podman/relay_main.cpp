// errand-relay SOCKET PROGRAM [ARGS...]
// errand-relay --no-broker PROGRAM [ARGS...]
//
// The first process of every podman session. podman's seccomp profile refuses calls by name
// only, so the relay loads errand's own filter (bailey's, stacked on the profile: the kernel
// takes the stricter answer) right before PROGRAM (looked up on the container's PATH) starts; a
// filter that cannot be built or loaded ends the relay with the reason before the agent runs.
// Under the broker it listens on 127.0.0.1:3128 inside the container's empty network namespace,
// starts PROGRAM as its child, and carries each connection to the broker's unix socket SOCKET
// until the agent exits; then exits as the agent did, passing termination signals on. With
// --no-broker it has nothing to relay and execs PROGRAM itself, so the agent keeps its pid and
// gets its signals directly. Linked statically, since the image holds none of errand's libraries.

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
#include <utility>

#include "common/broker_relay/broker_relay.hpp"
#include "common/broker_relay/supervisor_signals.hpp"
#include "plugins/sandbox-bailey/common/seccomp_filter.hpp"

namespace {

using errand::bailey::SeccompFilter;
using errand::broker_relay::Relay;

constexpr std::uint64_t kSignalTag = 1;
// podman's own codes for a command that cannot be run, so the plugin reads both the same way.
constexpr int kNotRunnable = 126;
constexpr int kNotFound = 127;

[[noreturn]] void die(const std::string& what, int error = errno) {
  std::fprintf(stderr, "errand-relay: %s: %s\n", what.c_str(), std::strerror(error));
  std::_Exit(kNotRunnable);
}

SeccompFilter built_filter() {
  auto filter = errand::bailey::build_seccomp_filter();
  if (!filter) {
    std::fprintf(stderr, "errand-relay: building the syscall filter: %s\n",
                 filter.error().message.c_str());
    std::_Exit(kNotRunnable);
  }
  return std::move(*filter);
}

// The filter goes on last, so the agent never runs without it.
[[noreturn]] void exec_agent_filtered(const SeccompFilter& filter, char** argv) {
  const int rc = errand::bailey::load_seccomp_filter(filter);
  if (rc != 0) die("loading the syscall filter", -rc);
  ::execvp(argv[0], argv);
  const int e = errno;
  std::fprintf(stderr, "errand-relay: cannot run %s: %s\n", argv[0], std::strerror(e));
  std::_Exit(e == ENOENT ? kNotFound : kNotRunnable);
}

int exit_status_of(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : kNotRunnable;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: errand-relay BROKER_SOCKET PROGRAM [ARGS...]\n"
                 "       errand-relay --no-broker PROGRAM [ARGS...]\n");
    return kNotRunnable;
  }
  const auto filter = built_filter();
  if (std::strcmp(argv[1], errand::broker_relay::kNoBrokerArgument) == 0)
    exec_agent_filtered(filter, argv + 2);
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
    exec_agent_filtered(filter, argv + 2);
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
