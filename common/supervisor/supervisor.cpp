#include "common/supervisor/supervisor.hpp"

#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace errand::supervisor {

sigset_t supervisor_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&set, sig);
  return set;
}

sdk::Result<int> watch_supervisor_signals(int epoll_fd, std::uint64_t tag) {
  const sigset_t handled = supervisor_signals();
  const int signal_fd = ::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd < 0) return sdk::make_error(std::string("signalfd: ") + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, signal_fd, &ev) != 0) {
    const int error = errno;
    ::close(signal_fd);
    return sdk::make_error(std::string("watching signals: ") + std::strerror(error));
  }
  return signal_fd;
}

std::optional<int> take_supervisor_signals(int signal_fd, pid_t agent,
                                           const std::function<void(int)>& forward) {
  std::optional<int> agent_status;
  signalfd_siginfo info{};
  while (::read(signal_fd, &info, sizeof info) == sizeof info) {
    if (info.ssi_signo != SIGCHLD) {
      forward(static_cast<int>(info.ssi_signo));
      continue;
    }
    int status = 0;
    for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG)) > 0;)
      if (pid == agent) agent_status = status;
  }
  return agent_status;
}

sdk::Result<int> supervise_until_agent_ends(const Supervision& s) {
  epoll_event events[64];
  while (true) {
    const int n = ::epoll_wait(s.epoll_fd, events, 64, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      auto failed = sdk::make_error(std::string("epoll_wait: ") + std::strerror(error));
      errno = error;
      return failed;
    }
    for (int i = 0; i < n; ++i) {
      const auto tag = events[i].data.u64;
      if (tag != s.signal_tag) {
        if (s.other) s.other(tag, events[i].events);
        continue;
      }
      if (const auto status = take_supervisor_signals(s.signal_fd, s.agent, s.forward))
        return *status;
    }
  }
}

}  // namespace errand::supervisor
