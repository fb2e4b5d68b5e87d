#include "core/sessions/model_catalog.hpp"

#include "core/config/string_settings.hpp"
#include "core/config/suggest.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <errand/sdk/config_values.hpp>

namespace errand::sessions {

namespace json = boost::json;

namespace {

// A configured model is its id, or an object naming it.
std::string model_name(const json::value& entry) {
  if (entry.is_string()) return std::string(entry.as_string());
  if (entry.is_object())
    for (const auto* key : {"id", "name", "model"})
      if (const auto* v = entry.as_object().if_contains(key); v && v->is_string())
        return std::string(v->as_string());
  return {};
}

void add_once(std::vector<std::string>& names, std::string name) {
  if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
    names.push_back(std::move(name));
}

const json::value* provider_setting(const json::object& config, std::string_view provider,
                                    std::string_view key) {
  const auto* providers = sdk::find_setting(config, "agent.providers");
  if (providers == nullptr || !providers->is_object()) return nullptr;
  const auto* entry = providers->as_object().if_contains(provider);
  if (entry == nullptr || !entry->is_object()) return nullptr;
  return entry->as_object().if_contains(key);
}

// "`a`", "`a` or `b`", "`a`, `b` or `c`".
std::string one_of(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += "`" + names[i] + "`";
  }
  return text;
}

}  // namespace

std::vector<std::string> ProviderModels::names() const {
  std::vector<std::string> all = models;
  for (const auto& alias : aliases) add_once(all, alias.first);
  return all;
}

bool ProviderModels::accepts(std::string_view name) const {
  const auto all = names();
  return std::find(all.begin(), all.end(), name) != all.end();
}

ProviderModels models_of(const ModelSources& sources, std::string_view provider) {
  ProviderModels found;
  found.provider = std::string(provider);
  if (const auto* listed = provider_setting(sources.config, provider, "models");
      listed != nullptr && listed->is_array())
    for (const auto& entry : listed->as_array()) add_once(found.models, model_name(entry));
  if (const auto fetched = sources.fetched.find(found.provider); fetched != sources.fetched.end())
    for (const auto& id : fetched->second.ids) add_once(found.models, id);
  if (sources.catalog != nullptr)
    for (const auto& known : sources.catalog->providers)
      if (known.id == provider)
        for (const auto& model : known.models) add_once(found.models, model.id);
  if (const auto* aliases = sdk::find_setting(sources.config, "agent.aliases");
      aliases != nullptr && aliases->is_object())
    for (const auto& [alias, target] : aliases->as_object())
      if (target.is_string())
        found.aliases.emplace_back(std::string(alias), std::string(target.as_string()));
  return found;
}

std::vector<std::string> configured_providers(const json::object& config) {
  std::vector<std::string> providers;
  add_once(providers, config::string_setting(config, "agent.provider"));
  if (const auto* all = sdk::find_setting(config, "agent.providers"); all && all->is_object())
    for (const auto& entry : all->as_object()) add_once(providers, std::string(entry.key()));
  return providers;
}

std::string unknown_model_refusal(const ProviderModels& models, std::string_view requested) {
  if (!models.listed() || models.accepts(requested)) return {};
  std::string_view name = requested;
  // As agent::choose_model reads it: the part after the last colon is a thinking level.
  if (const auto colon = requested.rfind(':');
      colon != std::string_view::npos && colon > 0 && colon + 1 < requested.size()) {
    name = requested.substr(0, colon);
    if (models.accepts(name)) return {};
  }
  std::string sentence =
      fmt::format("`{}` is not a model errand knows for {}", name, models.provider);
  if (const auto closest = config::closest_names(name, models.names()); !closest.empty())
    sentence += "; did you mean " + one_of(closest) + "?";
  else
    sentence += ";";
  return sentence + " `!model` lists them";
}

}  // namespace errand::sessions
