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
constexpr auto kExecutable = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec;

void remove_made_directories() {
  for (std::size_t i = 0; i < made_count; ++i) {
    std::error_code ec;
    fs::remove_all(made_directories[i].data(), ec);
  }
}

// A fresh directory under /var/tmp, removed when the process exits; empty when none was made.
fs::path made_directory(std::string_view directory_prefix) {
  const std::lock_guard lock(made_mutex);
  if (made_count == kMaxCopies) return {};
  auto& name = made_directories[made_count];
  const std::string pattern = "/var/tmp/" + std::string(directory_prefix) + "-XXXXXX";
  if (pattern.size() >= name.size()) return {};
  std::memcpy(name.data(), pattern.c_str(), pattern.size() + 1);
  if (::mkdtemp(name.data()) == nullptr) return {};
  if (made_count++ == 0) std::atexit(remove_made_directories);
  std::error_code ec;
  fs::permissions(name.data(), kExecutable, ec);
  return ec ? fs::path() : fs::path(name.data());
}

// A hard link where the file system allows one (a build tree's plugins are large), else a copy.
bool place(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_hard_link(from, to, ec);
  if (ec) fs::copy_file(from, to, ec);
  return !ec;
}

}  // namespace

fs::path copy_outside_tmp(const fs::path& program, std::string_view directory_prefix) {
  const fs::path directory = made_directory(directory_prefix);
  if (directory.empty()) return program;
  const fs::path copy = directory / program.filename();
  std::error_code ec;
  fs::copy_file(program, copy, ec);
  if (!ec) fs::permissions(copy, kExecutable, ec);
  return ec ? program : copy;
}

fs::path stage_plugins_outside_tmp(const fs::path& plugins) {
  if (!plugins.string().starts_with("/tmp/")) return plugins;
  const fs::path directory = made_directory("errand-plugins");
  if (directory.empty()) return plugins;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(plugins, ec))
    if (entry.is_regular_file() && !place(entry.path(), directory / entry.path().filename()))
      return plugins;
  if (fs::is_directory(plugins / "tools")) {
    fs::create_directory(directory / "tools", ec);
    fs::permissions(directory / "tools", kExecutable, ec);
    for (const auto& entry : fs::directory_iterator(plugins / "tools", ec))
      if (entry.is_regular_file() &&
          !place(entry.path(), directory / "tools" / entry.path().filename()))
        return plugins;
  }
  return ec ? plugins : directory;
}

}  // namespace errand::test
