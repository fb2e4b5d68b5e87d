#pragma once

#include <filesystem>
#include <vector>

namespace errand::plugins {

// The directories scanned for plugins, in the order they are searched: every entry of
// ERRAND_PLUGIN_PATH (colon-separated; empty entries ignored; a relative entry is taken from the
// current directory), then the configuration's plugins.path, then default_dir. A directory
// named twice keeps its first place. errand_plugin_path_env may be null (variable unset).
std::vector<std::filesystem::path> plugin_search_dirs(
    const char* errand_plugin_path_env, const std::vector<std::filesystem::path>& config_dirs,
    const std::filesystem::path& default_dir);

// Where an installed errand looks last: ERRAND_DEFAULT_PLUGIN_DIR, fixed at build time from
// the install prefix (/usr/lib/errand for a /usr install).
std::filesystem::path default_plugin_dir();

}  // namespace errand::plugins
