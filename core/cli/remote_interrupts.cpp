#include "core/cli/remote_interrupts.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

namespace errand::cli {

namespace {

// The handler's only state; a signal handler can reach nothing else safely.
volatile sig_atomic_t interrupt_write_fd = -1;
int interrupt_read_fd = -1;
struct sigaction previous_sigint {};

void on_sigint(int) {
  const int saved = errno;
  const char byte = 1;
  if (interrupt_write_fd >= 0) {
    // A full pipe already holds interrupts enough; nothing to do about a failed write here.
    [[maybe_unused]] const auto written = ::write(interrupt_write_fd, &byte, 1);
  }
  errno = saved;
}

}  // namespace

InterruptPipe::InterruptPipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;
  interrupt_read_fd = fds[0];
  interrupt_write_fd = fds[1];
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  ::sigaction(SIGINT, &action, &previous_sigint);
}

InterruptPipe::~InterruptPipe() {
  if (interrupt_read_fd < 0) return;
  ::sigaction(SIGINT, &previous_sigint, nullptr);
  ::close(interrupt_write_fd);
  ::close(interrupt_read_fd);
  interrupt_write_fd = -1;
  interrupt_read_fd = -1;
}

int InterruptPipe::read_fd() const noexcept {
  return interrupt_read_fd;
}

remote::CallTerminal process_terminal(const InterruptPipe& interrupts) {
  return remote::CallTerminal{.stdin_fd = STDIN_FILENO,
                              .stdout_fd = STDOUT_FILENO,
                              .stderr_fd = STDERR_FILENO,
                              .stdin_is_terminal = ::isatty(STDIN_FILENO) == 1,
                              .interrupts_fd = interrupts.read_fd()};
}

}  // namespace errand::cli
