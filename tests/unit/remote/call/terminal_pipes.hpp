#pragma once

// The user's terminal as pipes: what the call writes to stdout and stderr is read back after
// it returns, its stdin is fed by the test, and an interrupt is a byte down the self-pipe the
// CLI's SIGINT handler would write.

#include <string>
#include <string_view>

#include "common/unique_fd.hpp"
#include "core/remote/call/call_endpoints.hpp"

namespace errand::test {

class TerminalPipes {
 public:
  TerminalPipes();

  // The descriptors for the call; stdin_is_terminal as the test pretends.
  remote::CallTerminal terminal(bool stdin_is_terminal = false) const;

  // Writes to the call's stdin (small enough for the pipe to hold), then closes it.
  void give_stdin_and_close(std::string_view data);
  // The fd the script writes an interrupt byte to.
  int interrupt_writer() const noexcept { return interrupts_in_.get(); }

  // Everything the call wrote (closing the write end first, so the reading ends).
  std::string take_stdout();
  std::string take_stderr();

 private:
  common::UniqueFd stdin_out_, stdin_in_;  // the call reads stdin_out_
  common::UniqueFd stdout_out_, stdout_in_;
  common::UniqueFd stderr_out_, stderr_in_;
  common::UniqueFd interrupts_out_, interrupts_in_;
};

}  // namespace errand::test
