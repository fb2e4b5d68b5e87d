#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace errand::test {

// Makes a fresh directory (mode 0700) named prefix and six random characters under parent, and
// returns its path; it is the caller's to remove. Throws std::runtime_error saying why not.
std::filesystem::path make_temp_dir(const std::filesystem::path& parent, std::string_view prefix);

// A fresh directory, removed with everything in it when the object goes: under $TMPDIR, or
// under parent for a test that needs a particular place (/var/tmp, outside what bailey hides).
class TempDir {
 public:
  TempDir();
  explicit TempDir(const std::filesystem::path& parent, std::string_view prefix = "errand-test-");
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
