#include "core/agent/generic_acp_glue.hpp"

#include "core/agent/known_acp_adapters.hpp"
#include "core/config/string_settings.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::agent {

namespace json = boost::json;

void GenericAcpGlue::check(const json::object& config, sdk::ConfigProblems& problems) const {
  const auto* command = sdk::find_setting(config, "agent.command");
  if (command == nullptr || !command->is_array() || command->as_array().empty())
    problems.add("agent.command",
                 "an acp agent needs its command line in agent.command, e.g. [\"my-agent\", "
                 "\"--acp\"]");
  if (!config::string_setting(config, "agent.credentialVariable").empty()) return;
  const std::string provider = config::string_setting(config, "agent.provider");
  const auto* definition = sdk::find_setting(config, "agent.providers");
  if (provider.empty() || definition == nullptr || !definition->is_object()) return;
  const auto* chosen = definition->as_object().if_contains(provider);
  if (chosen == nullptr || !chosen->is_object()) return;
  const auto* name = chosen->as_object().if_contains("credentialName");
  if (name == nullptr || !name->is_string() || name->as_string().empty())
    problems.add("agent.credentialVariable",
                 "errand does not know which variable the agent reads its key from: set "
                 "agent.credentialVariable, or credentialName on agent.providers." +
                     provider);
}

sdk::Result<AgentLaunch> GenericAcpGlue::prepare(const LaunchInputs& inputs) const {
  auto route = checked_route(*this, inputs, "the acp agent");
  if (!route) return route.error();
  const auto& config = *inputs.config;

  AgentLaunch launch;
  for (const auto& arg : sdk::find_setting(config, "agent.command")->as_array())
    if (arg.is_string()) launch.argv.emplace_back(arg.as_string());

  const std::string base_variable = config::string_setting(config, "agent.baseUrlVariable");
  if (!base_variable.empty() && !(*route)->base_url.empty())
    launch.env.emplace_back(base_variable, (*route)->base_url);
  std::string key_variable = config::string_setting(config, "agent.credentialVariable");
  if (key_variable.empty()) key_variable = (*route)->credential_name;
  if (!(*route)->credential.empty()) launch.env.emplace_back(key_variable, (*route)->credential);

  // Such an agent takes no model on a command line errand knows, so it is set over ACP.
  const auto model = choose_model(config, inputs.model);
  if (!model.model.empty()) launch.config_options.emplace_back("model", model.model);
  if (!model.thinking_level.empty())
    launch.config_options.emplace_back("thinking", model.thinking_level);

  if (auto set_up = add_adapter_setup(known_adapter(launch.argv.front()), **route, model, launch);
      !set_up)
    return set_up.error();

  if (auto placed = place_agent_install(inputs, launch); !placed) return placed.error();
  // The image's own install, by its absolute path, as on the host: never a name looked up
  // through a PATH that starts with the session's writable home.
  if (bundled_ != nullptr && !inputs.agent_installed_on_host &&
      launch.argv.front() == bundled_->kind)
    launch.argv.front() =
        (bundled_bin_dir(std::filesystem::path(system_agents_root)) / std::string(bundled_->kind))
            .string();
  return launch;
}

}  // namespace errand::agent
