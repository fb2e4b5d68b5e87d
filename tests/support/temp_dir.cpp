#include "tests/support/temp_dir.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace errand::test {

std::filesystem::path make_temp_dir(const std::filesystem::path& parent, std::string_view prefix) {
  std::string pattern = (parent / prefix).string() + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot make a temporary directory under " + parent.string() + ": " +
                             std::strerror(errno));
  return pattern;
}

TempDir::TempDir() : TempDir(std::filesystem::temp_directory_path()) {}

TempDir::TempDir(const std::filesystem::path& parent, std::string_view prefix)
    : path_(make_temp_dir(parent, prefix)) {}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void write_file(const std::filesystem::path& file, std::string_view content) {
  std::filesystem::create_directories(file.parent_path());
  // Written to a sibling and renamed, as an editor does, so a watcher never sees half a file.
  const auto temporary = file.string() + ".writing";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + temporary);
  }
  std::filesystem::rename(temporary, file);
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace errand::test
