#pragma once

#include <boost/json/object.hpp>
#include <boost/system/result.hpp>
#include <filesystem>
#include <string_view>
#include <vector>

#include "core/config/plugin_contribution.hpp"
#include "core/config/problem.hpp"

namespace errand::config {

struct LoadedConfig {
  std::filesystem::path source;
  boost::json::object written;    // as parsed
  boost::json::object effective;  // validated, every default filled in
};

// Either a configuration that passed every check, or every problem found: nothing in between,
// so a refused file is never partly applied.
using LoadResult = boost::system::result<LoadedConfig, std::vector<Problem>>;

// Parses JSONC, validates against `schema` (normally compose_schema's), fills defaults, checks
// the cross-key rules and then runs each plugin's validator. The plugin validators run only when
// the schema validation passed, so they always see a well-typed configuration with every
// default filled (as the SDK promises); a problem in the core's cross-key rules does not stop
// them.
LoadResult load_config_text(std::string_view text, const std::filesystem::path& source,
                            const boost::json::object& schema,
                            const std::vector<PluginContribution>& contributions);

// The same, reading the file first. An unreadable file, or a path that is not a regular file, is
// a Problem with the system's reason.
LoadResult load_config_file(const std::filesystem::path& file, const boost::json::object& schema,
                            const std::vector<PluginContribution>& contributions);

// Only plugins.path, ignoring every other problem: the plugin directories must be known before
// the plugins whose keys complete the schema are loaded. Entries that are not absolute paths are
// skipped (the full load refuses them). {} when the file cannot be read or parsed.
std::vector<std::filesystem::path> plugin_dirs_leniently(const std::filesystem::path& file);

}  // namespace errand::config
