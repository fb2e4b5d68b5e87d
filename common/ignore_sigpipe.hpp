#pragma once

// A write to a pipe or socket whose reader is gone raises SIGPIPE, and so does splice() into such
// a socket (it has no MSG_NOSIGNAL), which ends the process by default. errand's own code handles
// the EPIPE that comes back instead (an agent that closed its input, a tunnel's far end gone), so
// the processes that write to such peers ignore the signal, once. Children started with
// common::spawn_process get every signal back at its default.

#include <csignal>
#include <mutex>

namespace errand::common {

inline void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

}  // namespace errand::common
