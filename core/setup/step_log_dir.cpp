#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/setup/steps.hpp"

namespace errand::setup {

void step_log_dir(SetupContext& context) {
  const auto& dir = context.host.log_dir;
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) {
    context.report.already("the log directory " + dir.string() + " exists");
    return;
  }
  if (!context.dry_run()) {
    std::filesystem::create_directories(dir, ec);
    if (ec)
      throw StepFailed("the log directory", "cannot create " + dir.string() + ": " + ec.message(),
                       "check that /var/log is writable by root");
    ::chmod(dir.c_str(), 0755);
  }
  context.report.changed("created the log directory " + dir.string(),
                         "create the log directory " + dir.string());
}

}  // namespace errand::setup
