#include "tests/support/program_copy.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace errand::test {

namespace fs = std::filesystem;

namespace {

// Plain buffers rather than path objects: the exit handler runs after statics are destroyed.
constexpr std::size_t kMaxCopies = 8;
std::array<std::array<char, 128>, kMaxCopies> made_directories{};
std::size_t made_count = 0;
std::mutex made_mutex;

void remove_made_directories() {
  for (std::size_t i = 0; i < made_count; ++i) {
    std::error_code ec;
    fs::remove_all(made_directories[i].data(), ec);
  }
}

}  // namespace

fs::path copy_outside_tmp(const fs::path& program, std::string_view directory_prefix) {
  const std::lock_guard lock(made_mutex);
  if (made_count == kMaxCopies) return program;
  auto& name = made_directories[made_count];
  const std::string pattern = "/var/tmp/" + std::string(directory_prefix) + "-XXXXXX";
  if (pattern.size() >= name.size()) return program;
  std::memcpy(name.data(), pattern.c_str(), pattern.size() + 1);
  if (::mkdtemp(name.data()) == nullptr) return program;
  if (made_count++ == 0) std::atexit(remove_made_directories);
  const auto executable = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec;
  const fs::path copy = fs::path(name.data()) / program.filename();
  std::error_code ec;
  fs::permissions(name.data(), executable, ec);
  if (!ec) fs::copy_file(program, copy, ec);
  if (!ec) fs::permissions(copy, executable, ec);
  return ec ? program : copy;
}

}  // namespace errand::test
