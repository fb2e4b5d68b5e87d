#include "tests/unit/remote/call/terminal_pipes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>

#include "tests/support/fd_text.hpp"

namespace errand::test {

namespace {

void open_pipe(common::UniqueFd& read_end, common::UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
}

std::string drain_pipe(common::UniqueFd& read_end, common::UniqueFd& write_end) {
  write_end.reset();
  return read_all(read_end.get());
}

}  // namespace

TerminalPipes::TerminalPipes() {
  open_pipe(stdin_out_, stdin_in_);
  open_pipe(stdout_out_, stdout_in_);
  open_pipe(stderr_out_, stderr_in_);
  open_pipe(interrupts_out_, interrupts_in_);
}

remote::CallTerminal TerminalPipes::terminal(bool stdin_is_terminal) const {
  return remote::CallTerminal{.stdin_fd = stdin_out_.get(),
                              .stdout_fd = stdout_in_.get(),
                              .stderr_fd = stderr_in_.get(),
                              .stdin_is_terminal = stdin_is_terminal,
                              .interrupts_fd = interrupts_out_.get()};
}

void TerminalPipes::give_stdin_and_close(std::string_view data) {
  while (!data.empty()) {
    const ssize_t wrote = ::write(stdin_in_.get(), data.data(), data.size());
    if (wrote <= 0) throw std::runtime_error("writing the call's stdin failed");
    data.remove_prefix(static_cast<std::size_t>(wrote));
  }
  stdin_in_.reset();
}

std::string TerminalPipes::take_stdout() {
  return drain_pipe(stdout_out_, stdout_in_);
}

std::string TerminalPipes::take_stderr() {
  return drain_pipe(stderr_out_, stderr_in_);
}

}  // namespace errand::test
