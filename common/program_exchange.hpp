#pragma once

// One exchange with a short-lived program: its input written to its stdin, its stdout read to
// the end, under a deadline and a size bound, then its exit status. For helpers that answer
// one question and exit (errand running itself to read plugins it will not map). Blocks the
// calling thread; never for a program that may wait on the caller.

#include <chrono>
#include <cstddef>
#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

namespace errand::common {

struct ProgramExchange {
  std::string program;  // an absolute path; argv[0] too
  std::vector<std::string> args;
  std::string input;  // written to its stdin, which is then closed
  std::chrono::milliseconds deadline{30000};
  std::size_t max_output = std::size_t{8} << 20;  // stdout; stderr keeps only its tail
  // The child writes to this process's stderr rather than a pipe: all of what it says (a
  // sanitizer's report, a plugin's own lines) lands in this process's log, and err_tail is empty.
  bool share_stderr = false;
};

struct ProgramAnswer {
  int exit_code = -1;  // 128 + the signal when one ended it
  std::string out;
  std::string err_tail;  // the last 4 KiB it wrote to stderr, unless it shared ours
};

// The answer, whatever the exit code; or, as the end of a sentence, why there is none: it
// could not be started, it ran past the deadline or wrote more than max_output (it is killed
// then). The child inherits this process's environment.
sdk::Result<ProgramAnswer> exchange_with_program(const ProgramExchange& exchange);

}  // namespace errand::common
