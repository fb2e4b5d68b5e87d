#include "common/setup_steps/data_dir.hpp"

#include <cstdlib>
#include <system_error>

#include "common/setup_steps/step_report.hpp"

namespace errand::setup {

namespace fs = std::filesystem;

DataDir::DataDir(const char* data_dir_env, const fs::path& executable) {
  if (data_dir_env != nullptr && *data_dir_env != '\0') {
    root_ = data_dir_env;
    from_env_ = true;
  } else {
    root_ = (executable.parent_path() / ".." / "share" / "errand").lexically_normal();
  }
}

DataDir DataDir::from_process() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  return DataDir(std::getenv("ERRAND_DATA_DIR"), ec ? fs::path("/usr/bin/errand") : self);
}

fs::path DataDir::require(std::string_view relative, std::string_view step) const {
  const auto path = root_ / relative;
  std::error_code ec;
  if (fs::exists(path, ec)) return path;
  throw StepFailed(std::string(step), "errand's shipped file " + path.string() + " is missing",
                   from_env_ ? "ERRAND_DATA_DIR names " + root_.string() +
                                   "; point it at the directory that holds errand's data files "
                                   "(config.example.json, scripts/, image/)"
                             : "reinstall the errand package, or set ERRAND_DATA_DIR to the "
                               "directory that holds errand's data files (config.example.json, "
                               "scripts/, image/)");
}

}  // namespace errand::setup
