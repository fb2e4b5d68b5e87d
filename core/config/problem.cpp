#include "core/config/problem.hpp"

namespace errand::config {

std::string format_problems(const std::vector<Problem>& problems) {
  std::string text = "configuration refused (" + std::to_string(problems.size()) +
                     (problems.size() == 1 ? " problem" : " problems") + "):\n";
  for (const auto& problem : problems) {
    text += "  - ";
    if (!problem.path.empty()) text += problem.path + ": ";
    text += problem.message + "\n";
  }
  return text;
}

}  // namespace errand::config
