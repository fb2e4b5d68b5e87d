#pragma once

#include <boost/json/object.hpp>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/sandbox_policy.hpp>
#include <functional>
#include <string>
#include <vector>

namespace errand::config {

// What a loaded plugin adds to the configuration: keys merged into a core section, and checks
// over its part of the effective configuration (core/config/plugin_view.hpp).
struct PluginContribution {
  std::string plugin;  // the plugin's name, used in messages
  // The plugin's config_schema; may be empty. Shape:
  //   {"<dotted section>": {"properties": {...}, "required": [...]}}
  std::string schema_json;
  // Runs over the plugin's part of the effective configuration (validated, defaults filled)
  // once the schema validation passed; may be empty.
  std::function<void(const boost::json::object& effective, errand::sdk::ConfigProblems&)> validate;
  // A sandbox backend's checks of the policy the core built; run only for the backend
  // sandbox.backend chooses (core/sandbox/policy_problems). May be empty.
  std::function<void(const errand::sdk::SandboxPolicy&, errand::sdk::ConfigProblems&)>
      validate_policy;
  // The keys of other sections it reads (its config_reads); each must be a key the composed
  // schema defines.
  std::vector<std::string> reads;
};

}  // namespace errand::config
