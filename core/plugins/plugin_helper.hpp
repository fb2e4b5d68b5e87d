#pragma once

// Reading plugins in another process. The daemon needs every plugin's descriptor (its schema,
// the keys it is handed, its refusal) and every plugin's configuration checks, but maps the
// code only of the plugins its configuration uses. So it runs its own program as a helper,
// which maps them all, answers, and exits:
//
//   errand plugins describe DIR...   the registry's records as a catalogue (plugin_catalogue)
//   errand plugins check-config      on stdin {"checks": [{"path", "name", "config"}]}: each
//                                    plugin's validate_config over the configuration given;
//                                    on stdout {"verdicts": [{"problems": [{"path",
//                                    "message"}]} or {"refusal"}]}, one per check, in order
//
// Both are errand's own and change with it; the daemon runs the very file it was started from
// (/proc/self/exe), so the two ends are always the same build.

#include "core/plugins/plugin_record.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::plugins {

struct PluginHelper {
  std::filesystem::path program;
  std::chrono::milliseconds deadline{30000};
};

// The helper that is this process's own program.
PluginHelper own_program_as_helper();

// The records of every plugin in dirs, as PluginRegistry::scan would make them (duplicate
// names refused), with entry null; or why the helper could not say.
sdk::Result<std::vector<PluginRecord>> describe_with(
    const PluginHelper& helper, const std::vector<std::filesystem::path>& dirs);

struct ConfigCheck {
  const PluginRecord* record = nullptr;  // loaded, with validates_config
  boost::json::object config;            // what the plugin is handed (config::plugin_view)
};

// What one plugin's check found: its problems, or why it could not run (the file can no longer
// be loaded, or is not the plugin it was).
struct CheckVerdict {
  std::vector<sdk::ConfigProblems::Problem> problems;
  std::string refusal;
};

// Every check run by one helper, the verdicts in the checks' order; or why there are none.
sdk::Result<std::vector<CheckVerdict>> check_config_with(const PluginHelper& helper,
                                                         const std::vector<ConfigCheck>& checks);

// The helper's side: `errand plugins describe|check-config ARGS`, answering on stdout. Whatever a
// plugin itself prints while it is mapped goes to stderr, so it cannot corrupt the answer.
// Returns the exit code: 0 answered, 2 a request that cannot be read.
int serve_helper_command(const std::string& command, const std::vector<std::string>& args);

}  // namespace errand::plugins
