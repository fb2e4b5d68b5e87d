#include "core/daemon/run_environment.hpp"

#include <cstdlib>
#include <system_error>

namespace errand::daemon {

namespace {

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

RunEnvironment RunEnvironment::from_process() {
  RunEnvironment e;
  e.errand_config = env("ERRAND_CONFIG");
  e.home = env("HOME");
  e.errand_plugin_path = env("ERRAND_PLUGIN_PATH");
  e.errand_web_root = env("ERRAND_WEB_ROOT");
  std::error_code ec;
  e.cwd = std::filesystem::current_path(ec);
  e.default_plugin_dir = ERRAND_DEFAULT_PLUGIN_DIR;
  e.default_web_root = ERRAND_DEFAULT_WEB_ROOT;
  e.embedded_inputs = config::EmbeddedDefaultInputs::from_process();
  return e;
}

}  // namespace errand::daemon
