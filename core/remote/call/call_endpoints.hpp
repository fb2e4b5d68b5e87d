#pragma once

// The descriptors a call works with. The CLI opens them (a unix socket, or ssh's pipes; its own
// terminal) and decides what they are; the call only reads and writes them, so the tests can
// hand it a socketpair and pipes instead.

#include <string>
#include <string_view>

namespace errand::remote {

// The one byte stream to the runner: the same socket twice, or `ssh HOST errand serve
// --connect`'s stdout (read_fd) and stdin (write_fd). The call makes both non-blocking.
struct RunnerLink {
  int read_fd = -1;
  int write_fd = -1;
  std::string peer;     // the runner's name in job handles: the ssh host, or "local"
  std::string program;  // this side's hello "program", e.g. "errand 0.1.0"
};

struct CallTerminal {
  int stdin_fd = -1;  // -1: no input at all
  int stdout_fd = -1;
  int stderr_fd = -1;
  // isatty(stdin_fd) as the CLI found it. A terminal's input is not the job's: the call only
  // watches it for Ctrl-D, which detaches. Any other input is forwarded to the job's stdin.
  bool stdin_is_terminal = false;
  // The read end of a self-pipe the CLI's SIGINT handler writes one byte to per interrupt; -1
  // when there is none.
  int interrupts_fd = -1;
};

// "PEER/JOB", how the user names a job to `errand attach`.
inline std::string job_handle(std::string_view peer, std::string_view job) {
  std::string handle(peer);
  handle += '/';
  handle += job;
  return handle;
}

}  // namespace errand::remote
