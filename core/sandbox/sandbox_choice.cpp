#include "core/sandbox/sandbox_choice.hpp"

#include <errand/sdk/config_values.hpp>

#include "core/config/string_settings.hpp"
#include "core/sandbox/sandbox_section.hpp"

namespace errand::sandbox {

namespace json = boost::json;

SandboxChoice sandbox_choice(const json::object& config) {
  const auto section = sandbox_with_defaults(config);
  SandboxChoice choice;
  choice.backend = config::string_setting(section, "sandbox.backend");
  if (const auto* strict = sdk::find_setting(section, "sandbox.requireFullEnforcement");
      strict != nullptr && strict->is_bool())
    choice.require_full_enforcement = strict->as_bool();
  return choice;
}

sdk::EgressMode egress_mode(const json::object& config) {
  const auto section = sandbox_with_defaults(config);
  return config::string_setting(section, "sandbox.egress.mode") == "open" ? sdk::EgressMode::open
                                                                          : sdk::EgressMode::proxy;
}

}  // namespace errand::sandbox
