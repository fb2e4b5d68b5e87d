#pragma once

// The caller's Ctrl-C, as bytes on a pipe: the SIGINT handler writes one per interrupt, and the
// call polls the read end alongside the runner's stream, so an interrupt is handled where the
// call is rather than inside a signal handler.

#include "core/remote/call/call_endpoints.hpp"

namespace errand::cli {

class InterruptPipe {
 public:
  // Installs the handler (without SA_RESTART, so a blocking call returns EINTR). One at a time.
  InterruptPipe();
  ~InterruptPipe();
  InterruptPipe(const InterruptPipe&) = delete;
  InterruptPipe& operator=(const InterruptPipe&) = delete;

  // The read end for CallTerminal::interrupts_fd; -1 when the pipe could not be made.
  int read_fd() const noexcept;
};

// This process's own stdin, stdout and stderr, whether stdin is a terminal, and interrupts'
// read end: what a run or an attach follows a job with.
remote::CallTerminal process_terminal(const InterruptPipe& interrupts);

}  // namespace errand::cli
