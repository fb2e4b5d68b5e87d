#pragma once

#include <string>
#include <vector>

namespace errand::sdk {

// Collects every problem a validator finds, so an operator sees them all at once.
class ConfigProblems {
 public:
  struct Problem {
    std::string path;     // dotted, e.g. "chat.token"
    std::string message;  // what is wrong and what to do
  };

  void add(std::string path, std::string message) {
    problems_.push_back({std::move(path), std::move(message)});
  }
  const std::vector<Problem>& all() const noexcept { return problems_; }
  bool empty() const noexcept { return problems_.empty(); }

 private:
  std::vector<Problem> problems_;
};

}  // namespace errand::sdk
