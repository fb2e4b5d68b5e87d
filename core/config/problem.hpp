#pragma once

#include <string>
#include <vector>

namespace errand::config {

// One thing wrong with a configuration. The message names the key, says what is wrong and what
// to do, so an operator can fix every problem from one reading of the log.
struct Problem {
  std::string path;  // dotted ("chat.token", "sandbox.egressPorts[1]"); "" for the file itself
  std::string message;

  bool operator==(const Problem&) const = default;
};

// "configuration refused (2 problems):\n  - chat.chanelId: ...\n  - projectRoot: ...\n"
std::string format_problems(const std::vector<Problem>& problems);

}  // namespace errand::config
