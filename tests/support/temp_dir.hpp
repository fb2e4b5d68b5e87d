#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace errand::test {

// A fresh directory under $TMPDIR, removed with everything in it when the object goes.
class TempDir {
 public:
  TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::filesystem::path& path() const noexcept { return path_; }
  std::filesystem::path operator/(std::string_view child) const { return path_ / child; }

 private:
  std::filesystem::path path_;
};

void write_file(const std::filesystem::path& file, std::string_view content);
std::string read_file(const std::filesystem::path& file);

}  // namespace errand::test
