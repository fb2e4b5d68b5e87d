#include "core/config/fallback_checks.hpp"

#include <algorithm>
#include <errand/sdk/config_values.hpp>
#include <map>

#include "core/config/string_settings.hpp"
#include "core/config/suggest.hpp"

namespace errand::config {

namespace json = boost::json;

namespace {

const json::array* fallback_list(const json::object& config) {
  const auto* list = sdk::find_setting(config, "agent.fallback");
  return list != nullptr && list->is_array() ? &list->as_array() : nullptr;
}

std::vector<std::string> defined_providers(const json::object& config) {
  std::vector<std::string> names;
  const auto* providers = sdk::find_setting(config, "agent.providers");
  if (providers == nullptr || !providers->is_object()) return names;
  for (const auto& entry : providers->as_object()) names.emplace_back(entry.key());
  return names;
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "\"" : ", \"") + name + "\"";
  return out;
}

// Why a model of agent.provider cannot be a fallback, said once for both refusals.
constexpr std::string_view per_provider =
    "errand knows usage windows per provider, not per model, so a model of the same provider "
    "is spent whenever the starting one is";

}  // namespace

std::optional<ProviderModel> split_provider_model(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= text.size())
    return std::nullopt;
  return ProviderModel{std::string(text.substr(0, slash)), std::string(text.substr(slash + 1))};
}

std::vector<ProviderModel> fallback_entries(const json::object& config) {
  std::vector<ProviderModel> entries;
  if (const auto* list = fallback_list(config))
    for (const auto& item : *list)
      if (item.is_string())
        if (auto entry = split_provider_model(item.as_string())) entries.push_back(*entry);
  return entries;
}

void check_fallback(const json::object& config, std::vector<Problem>& problems) {
  const auto* list = fallback_list(config);
  if (list == nullptr) return;
  const std::string starting = string_setting(config, "agent.provider");
  const auto defined = defined_providers(config);
  std::vector<std::string> others;
  for (const auto& name : defined)
    if (name != starting) others.push_back(name);
  const std::string write_instead =
      others.empty() ? "define another provider under `agent.providers` and name one of its "
                       "models as \"<provider>/<model>\""
                     : "name a model of another provider as \"<provider>/<model>\" (defined: " +
                           listed(others) + ")";
  std::map<std::string, std::size_t> first_on_provider;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& item = (*list)[i];
    if (!item.is_string()) continue;  // the schema refuses it already
    const std::string at = "agent.fallback[" + std::to_string(i) + "]";
    const std::string text(item.as_string());
    const auto entry = split_provider_model(text);
    auto refuse = [&](std::string message) { problems.push_back({at, std::move(message)}); };
    if (!entry) {
      refuse("`" + at + "` is \"" + text +
             "\", which names no provider: a fallback runs on another provider, since " +
             std::string(per_provider) + "; " + write_instead);
      continue;
    }
    if (entry->provider == starting) {
      refuse("`" + at + "` is \"" + text + "\", a model of `agent.provider` itself; " +
             std::string(per_provider) + "; " + write_instead);
      continue;
    }
    if (std::find(defined.begin(), defined.end(), entry->provider) == defined.end()) {
      std::string message = "`" + at + "` names the provider \"" + entry->provider +
                            "\", which is not defined under `agent.providers`";
      if (auto near = closest_name(entry->provider, others))
        message += "; did you mean \"" + *near + "/" + entry->model + "\"?";
      else
        message += "; define it there, or " + write_instead;
      refuse(std::move(message));
      continue;
    }
    const auto [earlier, first] = first_on_provider.emplace(entry->provider, i);
    if (!first) {
      const std::string earlier_at = "agent.fallback[" + std::to_string(earlier->second) + "]";
      refuse("`" + at + "` is on the provider \"" + entry->provider + "\" like `" + earlier_at +
             "`, so it is spent whenever that entry is and would never be chosen; keep one "
             "entry per provider and remove this one");
    }
  }
}

}  // namespace errand::config
