#include "common/broker_relay/supervisor_signals.hpp"

#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace errand::broker_relay {

sigset_t supervisor_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&set, sig);
  return set;
}

int watch_supervisor_signals(int epoll_fd, std::uint64_t tag, std::string& failed_step) {
  const sigset_t handled = supervisor_signals();
  const int signal_fd = ::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd < 0) {
    failed_step = "signalfd";
    return -1;
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, signal_fd, &ev) != 0) {
    failed_step = "watching signals";
    return -1;
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

}  // namespace errand::broker_relay
