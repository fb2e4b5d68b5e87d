#include "core/config/defaults.hpp"

#include "core/agent/agent_kinds.hpp"
#include "core/agent/bundled_agents.hpp"

#include <algorithm>
#include <cmath>

namespace errand::config {

namespace json = boost::json;

namespace {

// "integer", or a list of types naming integer but not number (a size: string or integer).
bool declares_integer(const json::object& schema) {
  const auto* type = schema.if_contains("type");
  if (type == nullptr) return false;
  if (type->is_string()) return type->as_string() == "integer";
  if (!type->is_array()) return false;
  const auto& types = type->as_array();
  return std::find(types.begin(), types.end(), json::value("integer")) != types.end() &&
         std::find(types.begin(), types.end(), json::value("number")) == types.end();
}

const json::object* object_keyword(const json::object& schema, std::string_view keyword) {
  const auto* found = schema.if_contains(keyword);
  return found != nullptr && found->is_object() ? &found->as_object() : nullptr;
}

}  // namespace

void fill_schema_defaults(json::value& config, const json::object& schema) {
  if (declares_integer(schema) && config.is_double()) {
    const double number = config.as_double();
    if (std::isfinite(number) && std::floor(number) == number && std::fabs(number) < 9e18)
      config = static_cast<std::int64_t>(number);
    return;
  }
  if (config.is_array()) {
    if (const auto* items = object_keyword(schema, "items"))
      for (auto& item : config.as_array()) fill_schema_defaults(item, *items);
    return;
  }
  if (!config.is_object()) return;
  auto& object = config.as_object();
  const auto* properties = object_keyword(schema, "properties");
  const auto* additional = object_keyword(schema, "additionalProperties");
  if (properties != nullptr) {
    for (const auto& [name, node] : *properties) {
      if (object.contains(name) || !node.is_object()) continue;
      if (const auto* default_value = node.as_object().if_contains("default"))
        object[name] = *default_value;
    }
  }
  for (auto& [name, value] : object) {
    const json::value* property = properties ? properties->if_contains(name) : nullptr;
    if (property != nullptr && property->is_object()) {
      fill_schema_defaults(value, property->as_object());
    } else if (property == nullptr && additional != nullptr) {
      fill_schema_defaults(value, *additional);
    }
  }
}

namespace {

// The kind of the provider agent.provider names, or "" when there is none to read.
std::string session_provider_kind(const json::object& agent) {
  const auto* provider = agent.if_contains("provider");
  const auto* providers = agent.if_contains("providers");
  if (provider == nullptr || !provider->is_string() || providers == nullptr ||
      !providers->is_object())
    return {};
  const auto* definition = providers->as_object().if_contains(provider->as_string());
  if (definition == nullptr || !definition->is_object()) return {};
  const auto* kind = definition->as_object().if_contains("kind");
  return kind != nullptr && kind->is_string() ? std::string(kind->as_string()) : std::string();
}

// A bundled agent knows the variables it reads: its base URL's, and for each provider of a
// dialect it speaks, the key's, unless the configuration names others.
// Calls fill(provider, its kind) for each provider definition that is an object with a string
// kind: what a provider's defaults follow from.
template <class Fill>
void for_each_provider_with_kind(json::object& agent, Fill fill) {
  auto* providers = agent.if_contains("providers");
  if (providers == nullptr || !providers->is_object()) return;
  for (auto& [name, definition] : providers->as_object()) {
    if (!definition.is_object()) continue;
    auto& provider = definition.as_object();
    const auto* kind = provider.if_contains("kind");
    if (kind == nullptr || !kind->is_string()) continue;
    // A copy: adding a key to the provider may move the value the kind was read from.
    fill(provider, std::string(kind->as_string()));
  }
}

void fill_bundled_agent_variables(const agent::BundledAgent& bundled, json::object& agent) {
  if (!bundled.base_url_variable.empty() && !agent.contains("baseUrlVariable"))
    agent["baseUrlVariable"] = bundled.base_url_variable;
  for_each_provider_with_kind(agent, [](json::object& provider, const std::string& kind) {
    if (provider.contains("credentialName")) return;
    if (const auto* speaker = agent::bundled_agent_for_provider_kind(kind))
      provider["credentialName"] = speaker->credential_variable;
  });
}

// A provider's placement follows its kind when the definition leaves it out.
void fill_provider_placements(json::object& agent_section) {
  for_each_provider_with_kind(agent_section, [](json::object& provider, const std::string& kind) {
    if (provider.contains("placement")) return;
    if (kind == "anthropic") provider["placement"] = "x-api-key";
    if (kind == "openai") provider["placement"] = "bearer";
  });
}

}  // namespace

void fill_derived_defaults(json::object& config) {
  auto* agent = config.if_contains("agent");
  if (agent == nullptr || !agent->is_object()) return;
  auto& agent_section = agent->as_object();
  if (!agent_section.contains("kind")) {
    const auto kind = agent::default_kind_for_provider(session_provider_kind(agent_section));
    if (!kind.empty()) agent_section["kind"] = kind;
  }
  // Read into a copy: each key added below may move the section's values (a rehash).
  const auto* written_kind = agent_section.if_contains("kind");
  const std::string kind = written_kind != nullptr && written_kind->is_string()
                               ? std::string(written_kind->as_string())
                               : std::string();
  if (!kind.empty() && !agent_section.contains("command")) {
    json::array command;
    for (auto& word : agent::default_agent_command(kind)) command.emplace_back(word);
    if (!command.empty()) agent_section["command"] = std::move(command);
  }
  if (const auto* bundled = agent::bundled_agent(kind))
    fill_bundled_agent_variables(*bundled, agent_section);
  fill_provider_placements(agent_section);
}

}  // namespace errand::config
