#include "plugins/sandbox-incus/guest/guest_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

namespace errand::incus::guest {

namespace {

sdk::Error child_system_error(const std::string& what) {
  return sdk::make_error(what + ": " + std::strerror(errno));
}

}  // namespace

sdk::Result<void> prepare_child(int report_fd, const GuestAccount& account, pid_t init) {
  // pipe2 made report_fd close-on-exec already; dup3 refuses to move an fd onto itself.
  if (report_fd != kChildReportFd && ::dup3(report_fd, kChildReportFd, O_CLOEXEC) < 0)
    return child_system_error("moving the report pipe");
  // The epoll and signal fds, the other child's pipe, anything incusd's exec left open.
  if (::syscall(SYS_close_range, kChildReportFd + 1, ~0U, 0) != 0)
    return child_system_error("closing inherited fds");
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  if (::sigprocmask(SIG_SETMASK, &none, nullptr) != 0)
    return child_system_error("unblocking signals");
  if (auto became = become(account); !became) return became.error();
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return child_system_error("PR_SET_PDEATHSIG");
  if (::getppid() != init)
    return sdk::make_error("errand-guest-init ended before its child started");
  return {};
}

void report_to_init(const std::string& text) {
  [[maybe_unused]] const auto n = ::write(kChildReportFd, text.data(), text.size());
}

std::string read_child_report(int read_fd) {
  std::string text;
  char buffer[512];
  while (true) {
    const ssize_t n = ::read(read_fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(read_fd);
  return text;
}

}  // namespace errand::incus::guest
