// errand-relay SOCKET PROGRAM [ARGS...]
// errand-relay --no-broker PROGRAM [ARGS...]
//
// PID 1 of every podman session, and the one process there that is not the agent's. So that
// the agent can reach nothing less confined than itself, the relay first makes itself
// non-dumpable (the kernel then refuses its /proc/<pid>/mem and ptrace to a process without
// CAP_SYS_PTRACE) and loads errand's own filter (bailey's, stacked on podman's profile, which
// refuses calls by name only: the kernel takes the stricter answer) on itself; then it starts
// PROGRAM (looked up on the container's PATH) as its child, which inherits the filter, inside a
// Landlock domain of its own (landlock_fence.hpp) that fences it off from the relay a second
// way. A filter or domain that cannot be made ends the relay with the reason before the agent
// runs. Under the broker it listens on 127.0.0.1:3128 inside the container's empty network
// namespace and carries each connection to the broker's unix socket SOCKET; with --no-broker it
// relays nothing. Either way it passes termination signals on to the agent, reaps whatever is
// orphaned to it, and exits as the agent did, which ends the container. Linked statically,
// since the image holds none of errand's libraries.

#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
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
#include "common/landlock/landlock_fence.hpp"
#include "common/seccomp/seccomp_filter.hpp"
#include "common/supervisor/supervisor.hpp"

namespace {

using errand::broker_relay::Relay;
using errand::seccomp::SeccompFilter;

constexpr std::uint64_t kSignalTag = 1;
// podman's own codes for a command that cannot be run, so the plugin reads both the same way.
constexpr int kNotRunnable = 126;
constexpr int kNotFound = 127;

[[noreturn]] void die_saying(const std::string& message) {
  std::fprintf(stderr, "errand-relay: %s\n", message.c_str());
  std::_Exit(kNotRunnable);
}

[[noreturn]] void die(const std::string& what, int error = errno) {
  die_saying(what + ": " + std::strerror(error));
}

void load_filter_on_self() {
  auto filter = errand::seccomp::build_seccomp_filter();
  if (!filter) {
    std::fprintf(stderr, "errand-relay: building the syscall filter: %s\n",
                 filter.error().message.c_str());
    std::_Exit(kNotRunnable);
  }
  const int rc = errand::seccomp::load_seccomp_filter(*filter);
  if (rc != 0) die("loading the syscall filter", -rc);
}

// In the forked child: the fence goes on last, so the agent never runs without it.
[[noreturn]] void exec_agent_fenced(char** argv) {
  const int rc = errand::landlock::enter_fence();
  if (rc != 0) die("entering the agent's Landlock domain", -rc);
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
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) die("making the relay non-dumpable");
  load_filter_on_self();
  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) die("epoll_create1");
  std::unique_ptr<Relay> relay;
  if (std::strcmp(argv[1], errand::broker_relay::kNoBrokerArgument) != 0) {
    auto listening = Relay::listen(epoll_fd, argv[1]);
    if (!listening) die_saying(listening.error().message);
    relay = std::move(*listening);
  }

  const sigset_t handled = errand::supervisor::supervisor_signals();
  sigset_t previous;
  if (::sigprocmask(SIG_BLOCK, &handled, &previous) != 0) die("blocking signals");
  const auto watched = errand::supervisor::watch_supervisor_signals(epoll_fd, kSignalTag);
  if (!watched) die_saying(watched.error().message);
  const int signal_fd = *watched;

  const pid_t agent = ::fork();
  if (agent < 0) die("forking the agent");
  if (agent == 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    exec_agent_fenced(argv + 2);
  }

  errand::supervisor::Supervision supervision;
  supervision.epoll_fd = epoll_fd;
  supervision.signal_fd = signal_fd;
  supervision.signal_tag = kSignalTag;
  supervision.agent = agent;
  supervision.forward = [agent](int sig) { ::kill(agent, sig); };
  supervision.other = [&relay](std::uint64_t tag, std::uint32_t events) {
    if (relay && relay->owns(tag)) relay->on_event(tag, events);
  };
  const auto agent_status = errand::supervisor::supervise_until_agent_ends(supervision);
  if (!agent_status) die("epoll_wait");
  relay.reset();
  return exit_status_of(*agent_status);
}
