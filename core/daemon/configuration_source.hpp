#pragma once

#include "core/config/load.hpp"
#include "core/config/plugin_contribution.hpp"
#include "core/daemon/run_environment.hpp"
#include "core/plugins/registry.hpp"

#include <spdlog/logger.h>
#include <boost/json/object.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace errand::daemon {

// How the plugins' code comes into this process: every plugin mapped as it is read (a command
// that exits soon), or the plugins read by a helper process and only those the configuration
// uses mapped, when first called (the daemon: core/plugins/plugin_code.hpp).
enum class PluginCode { mapped_at_scan, mapped_when_used };

// The configuration file, the plugins it makes errand look for, and the schema those plugins
// compose with the core's. Every command that reads the configuration starts here.
struct ConfigurationSource {
  std::optional<std::filesystem::path> file;  // none found
  std::vector<std::filesystem::path> tried;
  std::vector<std::filesystem::path> plugin_dirs;
  std::shared_ptr<plugins::PluginRegistry> registry;
  std::vector<config::PluginContribution> contributions;
  boost::json::object schema;
  std::vector<config::Problem> schema_problems;  // a plugin's fragment that cannot be merged
  // With no file found and ERRAND_CONFIG not naming one: the built-in default when the
  // environment holds a bundled agent's provider key, else why there is none.
  std::optional<config::EmbeddedDefault> embedded;
  std::string embedded_refusal;

  // With use_configured_plugin_dirs false, plugins.path in the file is not consulted (how the
  // committed schema is generated, independent of any local configuration). When the helper
  // cannot read the plugins, schema_problems says why and nothing is loaded.
  static ConfigurationSource discover(const RunEnvironment& env, spdlog::logger& log,
                                      bool use_configured_plugin_dirs = true,
                                      PluginCode code = PluginCode::mapped_at_scan);

  // Loads and validates the file against the composed schema; every problem at once.
  config::LoadResult load() const;
  // Validates a written configuration made in memory (a reload's, with the fields it does not
  // reach held) exactly as a file's, reporting it as read from the file.
  config::LoadResult load_written(const boost::json::object& written) const;
  // A sentence saying where errand looked, for "no configuration found".
  std::string describe_search() const;
  // What the configuration was read from, for messages: the file, or the built-in default and
  // the variable its key came from.
  std::string origin() const;
};

}  // namespace errand::daemon
