#include "core/plugins/search_path.hpp"

#include <algorithm>
#include <string_view>
#include <system_error>

namespace errand::plugins {
namespace {

// Two spellings of one directory ("/a/b/", "/a//b") must count as the same entry, so entries
// are compared in a lexically normal form without a trailing separator.
std::filesystem::path comparable(const std::filesystem::path& dir) {
  auto normal = dir.lexically_normal();
  if (!normal.has_filename() && normal.has_relative_path()) normal = normal.parent_path();
  return normal;
}

void append_unique(std::vector<std::filesystem::path>& dirs, const std::filesystem::path& dir) {
  if (dir.empty()) return;
  auto normal = comparable(dir);
  if (std::find(dirs.begin(), dirs.end(), normal) == dirs.end()) dirs.push_back(std::move(normal));
}

}  // namespace

std::vector<std::filesystem::path> plugin_search_dirs(
    const char* errand_plugin_path_env, const std::vector<std::filesystem::path>& config_dirs,
    const std::filesystem::path& default_dir) {
  std::vector<std::filesystem::path> dirs;
  if (errand_plugin_path_env != nullptr) {
    std::string_view rest = errand_plugin_path_env;
    while (true) {
      const auto colon = rest.find(':');
      const auto entry = rest.substr(0, colon);
      if (!entry.empty()) {
        std::filesystem::path dir{std::string(entry)};
        // A relative entry is made absolute now, so the listing shows which directory it meant.
        std::error_code ec;
        if (dir.is_relative()) {
          auto absolute = std::filesystem::absolute(dir, ec);
          if (!ec) dir = std::move(absolute);
        }
        append_unique(dirs, dir);
      }
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  for (const auto& dir : config_dirs) append_unique(dirs, dir);
  append_unique(dirs, default_dir);
  return dirs;
}

std::filesystem::path default_plugin_dir() {
  return ERRAND_DEFAULT_PLUGIN_DIR;
}

}  // namespace errand::plugins
