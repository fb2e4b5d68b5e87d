#pragma once

// The caller's Ctrl-C, as bytes on a pipe: the SIGINT handler writes one per interrupt, and the
// call polls the read end alongside the runner's stream, so an interrupt is handled where the
// call is rather than inside a signal handler.

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

}  // namespace errand::cli
