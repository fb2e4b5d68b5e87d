#include "core/config/locate.hpp"

#include <cstdlib>
#include <string_view>
#include <system_error>

namespace errand::config {

namespace fs = std::filesystem;

namespace {

bool is_set(const char* value) {
  return value != nullptr && *value != '\0';
}

bool exists_at(const fs::path& candidate) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(candidate, ec));
}

}  // namespace

ConfigSearch locate_config(const char* errand_config_env, const char* home_env,
                           const fs::path& etc_dir, const fs::path& cwd) {
  ConfigSearch search;
  if (is_set(errand_config_env)) {
    fs::path named(errand_config_env);
    if (named.is_relative()) named = cwd / named;
    search.tried.push_back(named);
    if (exists_at(named)) search.found = named;
    return search;
  }
  std::vector<fs::path> candidates;
  if (is_set(home_env)) candidates.push_back(fs::path(home_env) / ".config/errand/config.json");
  candidates.push_back(etc_dir / "config.json");
  if (!cwd.empty()) candidates.push_back(cwd / "config.json");
  for (const auto& candidate : candidates) {
    search.tried.push_back(candidate);
    if (exists_at(candidate)) {
      search.found = candidate;
      break;
    }
  }
  return search;
}

ConfigSearch locate_config() {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  return locate_config(std::getenv("ERRAND_CONFIG"), std::getenv("HOME"), "/etc/errand",
                       ec ? fs::path() : cwd);
}

}  // namespace errand::config
