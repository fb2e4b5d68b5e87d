#pragma once

#include "core/config/embedded_default.hpp"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

namespace errand::daemon {

// What `errand` reads from its process environment, gathered once so everything below it can
// be driven by tests without touching the real environment.
struct RunEnvironment {
  std::optional<std::string> errand_config;       // ERRAND_CONFIG
  std::optional<std::string> home;                // HOME
  std::optional<std::string> errand_plugin_path;  // ERRAND_PLUGIN_PATH
  std::optional<std::string> errand_web_root;     // ERRAND_WEB_ROOT
  std::filesystem::path etc_dir = "/etc/errand";
  std::filesystem::path cwd;
  std::filesystem::path default_plugin_dir;
  // Where the web interface's built front-end is installed.
  std::filesystem::path default_web_root;
  // The provider keys, base URLs and XDG directories the built-in default is made from.
  config::EmbeddedDefaultInputs embedded_inputs;

  static RunEnvironment from_process();
};

}  // namespace errand::daemon
