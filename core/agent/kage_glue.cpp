#include "core/agent/kage_glue.hpp"

#include "common/toml/toml_text.hpp"
#include "core/config/string_settings.hpp"
#include "core/sandbox/sandbox_choice.hpp"

#include <algorithm>
#include <errand/sdk/config_values.hpp>
#include <map>

namespace errand::agent {

namespace json = boost::json;

namespace {

void render_custom_models(std::string& out, const std::string& table, const json::array& models) {
  for (const auto& model : models) {
    std::string id, name;
    const json::value* context = nullptr;
    if (model.is_string()) {
      id = name = std::string(model.as_string());
    } else if (model.is_object()) {
      id = config::string_member(model.as_object(), "id");
      name = config::string_member(model.as_object(), "name");
      context = model.as_object().if_contains("context");
    }
    if (id.empty()) continue;
    out += "\n[[" + table + ".models]]\n";
    out += "id = " + toml_text::string(id) + "\n";
    out += "name = " + toml_text::string(name.empty() ? id : name) + "\n";
    if (context != nullptr &&
        (context->is_uint64() || (context->is_int64() && context->as_int64() > 0)))
      out += "context = " + std::to_string(context->to_number<std::uint64_t>()) + "\n";
  }
}

}  // namespace

void KageGlue::check(const json::object& config, sdk::ConfigProblems& problems) const {
  const auto* providers = sdk::find_setting(config, "agent.providers");
  if (providers == nullptr || !providers->is_object()) return;
  const bool open = sandbox::egress_mode(config) == sdk::EgressMode::open;
  for (const auto& entry : providers->as_object()) {
    const std::string name(entry.key());
    const std::string path = "agent.providers." + name;
    if (auto named = check_kage_provider_name(name); !named) {
      problems.add(path, named.error().message);
      continue;
    }
    if (!entry.value().is_object()) continue;
    const auto& definition = entry.value().as_object();
    if (config::string_member(definition, "credentialName").empty())
      problems.add(path + ".credentialName",
                   "kage reads a provider's key from an environment variable, and errand puts "
                   "the key (a stand-in under the broker) in the one credentialName names; set "
                   "it, e.g. \"" +
                       name + "_API_KEY\"");
    const auto* broker = definition.if_contains("broker");
    const bool brokered = !open && (broker == nullptr || !broker->is_bool() || broker->as_bool());
    if (!catalog_.knows(name) && !brokered && config::string_member(definition, "baseUrl").empty())
      problems.add(path + ".baseUrl",
                   "kage does not know a provider named \"" + name +
                       "\", so errand declares it to kage as a custom provider, which needs an "
                       "endpoint; set baseUrl");
  }
}

sdk::Result<std::string> render_kage_config(const std::vector<ProviderRoute>& routes,
                                            const KageCatalog& catalog) {
  std::string out =
      "# Written by errand when the session launched; edits are replaced at the next launch.\n";
  for (const auto& route : routes) {
    if (auto named = check_kage_provider_name(route.name); !named)
      return sdk::make_error("agent.providers." + route.name + ": " + named.error().message);
    if (catalog.knows(route.name)) {
      if (route.base_url.empty()) continue;
      out += "\n[providers." + toml_text::key(route.name) + "]\n";
      out += "base_url = " + toml_text::string(route.base_url) + "\n";
      continue;
    }
    if (route.base_url.empty()) {
      if (route.brokered) continue;  // no broker session: unreachable on purpose
      return sdk::make_error("kage does not know the provider \"" + route.name +
                             "\" and it has no baseUrl; set agent.providers." + route.name +
                             ".baseUrl");
    }
    if (route.credential_name.empty())
      return sdk::make_error("agent.providers." + route.name +
                             ".credentialName is needed to tell kage where the key is");
    const std::string table = "providers.custom." + toml_text::key(route.name);
    out += "\n[" + table + "]\n";
    out += "kind = " + toml_text::string(route.kind == "anthropic" ? "anthropic" : "openai") + "\n";
    out += "base_url = " + toml_text::string(route.base_url) + "\n";
    out += "api_key_env = " + toml_text::string(route.credential_name) + "\n";
    out += "display_name = " + toml_text::string(route.name) + "\n";
    render_custom_models(out, table, route.models);
  }
  return out;
}

sdk::Result<AgentLaunch> KageGlue::prepare(const LaunchInputs& inputs) const {
  auto route = checked_route(*this, inputs, "kage");
  if (!route) return route.error();
  const auto& config = *inputs.config;

  AgentLaunch launch;
  if (const auto* command = sdk::find_setting(config, "agent.command");
      command && command->is_array())
    for (const auto& arg : command->as_array())
      if (arg.is_string()) launch.argv.emplace_back(arg.as_string());
  if (launch.argv.empty()) launch.argv = {std::string(kage_default_program), "rpc"};
  const auto model = choose_model(config, inputs.model);
  if (!model.model.empty()) {
    // kage addresses a model as provider/model.
    launch.argv.push_back("-m");
    launch.argv.push_back((*route)->name + "/" + model.model);
  }
  if (!model.thinking_level.empty())
    launch.config_options.emplace_back("thinking", model.thinking_level);
  // kage reads no rules file of its own from its home; --system is how it takes standing
  // instructions for a whole session.
  if (!inputs.house_rules.empty()) {
    launch.argv.push_back("--system");
    launch.argv.push_back(inputs.house_rules);
    launch.took_house_rules = true;
  }

  launch.env.emplace_back("KAGE_HOME", std::string(kage_home_inside));
  std::map<std::string, std::string> keys;
  for (const auto& r : inputs.routes) {
    if (r.credential.empty() || r.credential_name.empty()) continue;
    const auto [at, inserted] = keys.emplace(r.credential_name, r.credential);
    if (!inserted && at->second != r.credential)
      return sdk::make_error("two providers put different keys in " + r.credential_name +
                                 "; give each provider its own credentialName",
                             sdk::Error::Kind::refused);
  }
  for (auto& [name, value] : keys) launch.env.emplace_back(name, std::move(value));

  auto toml = render_kage_config(inputs.routes, catalog_);
  if (!toml) return toml.error();
  launch.files.push_back({std::string(kage_config_path), std::move(*toml)});

  if (auto placed = place_agent_install(inputs, launch); !placed) return placed.error();
  return launch;
}

}  // namespace errand::agent
