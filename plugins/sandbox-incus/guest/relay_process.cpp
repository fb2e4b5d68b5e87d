#include "plugins/sandbox-incus/guest/relay_process.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/broker_relay/broker_relay.hpp"
#include "plugins/sandbox-incus/guest/exit_codes.hpp"
#include "plugins/sandbox-incus/guest/guest_child.hpp"

namespace errand::incus::guest {

namespace {

constexpr const char* kListening = "listening";

// The agent's stream is fds 0 and 1; the relay must hold neither open, or the exec's stdout
// would not end when the agent's does.
void leave_the_agents_stream() {
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  ::dup2(null, STDIN_FILENO);
  ::dup2(null, STDOUT_FILENO);
  ::close(null);
}

[[noreturn]] void run_relay(const std::string& broker_socket) {
  const auto give_up = [](const std::string& what) {
    report_to_init(what + ": " + std::strerror(errno));
    ::_exit(kInitFailed);
  };
  // The relay runs as the agent's account: non-dumpable, the agent cannot open its memory
  // (/proc/<pid>/mem) or ptrace it. Taking the account already cleared the flag, but only as
  // the fs.suid_dumpable sysctl says; this does not depend on it.
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) give_up("making the relay non-dumpable");
  const int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) give_up("epoll_create1 in the relay");
  auto listening = broker_relay::Relay::listen(epoll_fd, broker_socket);
  if (!listening) {
    report_to_init(listening.error().message);
    ::_exit(kInitFailed);
  }
  const auto relay = std::move(*listening);
  report_to_init(kListening);
  ::close(kChildReportFd);
  epoll_event events[64];
  while (true) {
    const int n = ::epoll_wait(epoll_fd, events, 64, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::fprintf(stderr, "errand-guest-init: the relay's epoll_wait failed: %s\n",
                   std::strerror(errno));
      ::_exit(kInitFailed);
    }
    for (int i = 0; i < n; ++i)
      if (relay->owns(events[i].data.u64)) relay->on_event(events[i].data.u64, events[i].events);
  }
}

}  // namespace

sdk::Result<RelayProcess> start_relay(const std::string& broker_socket,
                                      const GuestAccount& account) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    return sdk::make_error(std::string("creating the relay's pipe: ") + std::strerror(errno));
  const pid_t init = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return sdk::make_error(std::string("forking the relay: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(report[0]);
    leave_the_agents_stream();
    if (auto ready = prepare_child(report[1], account, init); !ready) {
      report_to_init("preparing the relay: " + ready.error().message);
      ::_exit(kInitFailed);
    }
    run_relay(broker_socket);
  }
  ::close(report[1]);
  const auto said = read_child_report(report[0]);
  if (said != kListening) {
    ::waitpid(pid, nullptr, 0);
    return sdk::make_error(said.empty() ? std::string("the relay ended before it listened")
                                        : "the relay could not start: " + said);
  }
  // Still our unreaped child, so the pid is the relay's.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    const int e = errno;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return sdk::make_error(std::string("pidfd_open for the relay: ") + std::strerror(e));
  }
  return RelayProcess{pid, pidfd};
}

}  // namespace errand::incus::guest
