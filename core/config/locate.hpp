#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace errand::config {

struct ConfigSearch {
  std::optional<std::filesystem::path> found;
  std::vector<std::filesystem::path> tried;  // in the order looked at, for the "not found" message
};

// Where the configuration file is. ERRAND_CONFIG, when set and not empty, names it outright:
// no other place is looked at, and a missing file there is "not found". Otherwise the first that
// exists of $HOME/.config/errand/config.json, <etc_dir>/config.json and <cwd>/config.json; the
// first is skipped when HOME is unset or empty, the last when cwd is empty (no working directory).
// A path that exists but is not a regular file is still "found", so the load names what is wrong
// with it instead of silently moving on. The environment and directories are parameters so tests
// need not touch the real ones.
ConfigSearch locate_config(const char* errand_config_env, const char* home_env,
                           const std::filesystem::path& etc_dir, const std::filesystem::path& cwd);

// locate_config over the process's own environment, /etc/errand and working directory.
ConfigSearch locate_config();

}  // namespace errand::config
