#include "tests/support/root_preparation.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <vector>

namespace errand::test {

namespace {

struct Declared {
  std::string name;
  std::function<std::string(const TestAccount&)> make;
  std::function<void(const std::string&)> undo;
  std::optional<std::string> made;
};

std::vector<Declared>& declared() {
  static std::vector<Declared> all;
  return all;
}

// The child learns what was made through its environment, which fork hands it unchanged.
std::string variable(const std::string& prefix, const std::string& name) {
  std::string out = prefix;
  for (const char c : name)
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  return out;
}

const char* const kMadePrefix = "ERRAND_TEST_PREPARED_";
const char* const kRefusedPrefix = "ERRAND_TEST_UNPREPARED_";

}  // namespace

RootPreparation::RootPreparation(std::string name,
                                 std::function<std::string(const TestAccount&)> make,
                                 std::function<void(const std::string&)> undo) {
  declared().push_back({std::move(name), std::move(make), std::move(undo), std::nullopt});
}

Prepared prepared_as_root(const std::string& name) {
  if (const char* made = std::getenv(variable(kMadePrefix, name).c_str())) return {true, made, {}};
  if (const char* refused = std::getenv(variable(kRefusedPrefix, name).c_str()))
    return {false, {}, "the root parent could not prepare " + name + ": " + refused};
  return {false,
          {},
          "this test needs " + name +
              ", which only root can make; run the suite as root (scripts/test does in CI): it "
              "makes it, then runs the tests as the test account"};
}

void make_root_preparations(const TestAccount& account) {
  for (auto& d : declared()) {
    try {
      d.made = d.make(account);
      ::setenv(variable(kMadePrefix, d.name).c_str(), d.made->c_str(), 1);
    } catch (const std::exception& e) {
      ::setenv(variable(kRefusedPrefix, d.name).c_str(), e.what(), 1);
    }
  }
}

void undo_root_preparations() {
  for (auto& d : declared()) {
    if (!d.made) continue;
    d.undo(*d.made);
    d.made.reset();
  }
}

}  // namespace errand::test
