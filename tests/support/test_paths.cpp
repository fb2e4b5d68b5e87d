#include "tests/support/test_paths.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace errand::test {

namespace fs = std::filesystem;

namespace {

fs::path from_environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? fs::path(value) : fs::path();
}

fs::path build_dir_above_executable() {
  std::error_code error;
  const auto executable = fs::read_symlink("/proc/self/exe", error);
  if (error) return {};
  for (auto dir = executable.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "CMakeCache.txt", error)) return dir;
    if (dir == dir.root_path()) break;
  }
  return {};
}

// CMake records the project's source folder in the cache as errand_SOURCE_DIR.
fs::path source_dir_in_cache(const fs::path& build) {
  std::ifstream cache(build / "CMakeCache.txt");
  const std::string key = "errand_SOURCE_DIR:STATIC=";
  for (std::string line; std::getline(cache, line);) {
    if (line.starts_with(key)) return fs::path(line.substr(key.size()));
  }
  return {};
}

}  // namespace

fs::path build_dir() {
  static const fs::path dir = [] {
    if (auto set = from_environment("ERRAND_BUILD_DIR"); !set.empty()) return set;
    if (auto found = build_dir_above_executable(); !found.empty()) return found;
    throw std::runtime_error(
        "cannot tell where the build tree is: ERRAND_BUILD_DIR is not set and no folder above "
        "this test binary holds a CMakeCache.txt; run the test through ctest or set "
        "ERRAND_BUILD_DIR");
  }();
  return dir;
}

fs::path source_dir() {
  static const fs::path dir = [] {
    if (auto set = from_environment("ERRAND_SOURCE_DIR"); !set.empty()) return set;
    const auto build = build_dir();
    if (auto recorded = source_dir_in_cache(build); !recorded.empty()) return recorded;
    throw std::runtime_error(
        "cannot tell where the checkout is: ERRAND_SOURCE_DIR is not set and " +
        (build / "CMakeCache.txt").string() + " records no errand_SOURCE_DIR");
  }();
  return dir;
}

void remember_test_paths() noexcept {
  try {
    source_dir();  // and so build_dir()
  } catch (const std::exception&) {
    // The test that needs a path reports what is missing.
  }
}

fs::path build_path(std::string_view relative) {
  return build_dir() / relative;
}

fs::path source_path(std::string_view relative) {
  return source_dir() / relative;
}

std::string setting_from_environment(const char* name, std::string_view otherwise) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : std::string(otherwise);
}

}  // namespace errand::test
