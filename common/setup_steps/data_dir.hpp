#pragma once

// Where errand finds the files it ships (the example configuration, the host scripts, the image
// build): ERRAND_DATA_DIR, else share/errand beside the directory of the running executable
// (/usr/bin/errand: /usr/share/errand; build/default/bin/errand: build/default/share/errand).

#include <filesystem>
#include <string_view>

namespace errand::setup {

class DataDir {
 public:
  // data_dir_env is ERRAND_DATA_DIR (nullptr or empty when unset); executable is the running
  // program (/proc/self/exe).
  DataDir(const char* data_dir_env, const std::filesystem::path& executable);
  static DataDir from_process();

  const std::filesystem::path& root() const { return root_; }
  // root/relative, which must exist: otherwise StepFailed naming the path and the variable.
  std::filesystem::path require(std::string_view relative, std::string_view step) const;

 private:
  std::filesystem::path root_;
  bool from_env_ = false;
};

}  // namespace errand::setup
