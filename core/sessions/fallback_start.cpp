#include "core/sessions/fallback_start.hpp"

#include <errand/sdk/config_values.hpp>

#include "core/config/fallback_checks.hpp"
#include "core/config/string_settings.hpp"

namespace errand::sessions {

namespace json = boost::json;

namespace {

bool provider_defined(const json::object& config, std::string_view name) {
  const auto* providers = sdk::find_setting(config, "agent.providers");
  return providers != nullptr && providers->is_object() && providers->as_object().contains(name);
}

}  // namespace

StartChoice choose_start(const json::object& config, const SpentJudge& spent_of) {
  StartChoice choice;
  choice.provider = config::string_setting(config, "agent.provider");
  const auto fallback = config::fallback_entries(config);
  if (fallback.empty()) return choice;
  const auto spent = spent_of(choice.provider);
  if (!spent) return choice;
  for (const auto& entry : fallback) {
    if (spent_of(entry.provider)) continue;
    choice.notice = spent_clause(*spent) + ", so this session starts on " + entry.text();
    choice.provider = entry.provider;
    choice.model = entry.model;
    return choice;
  }
  choice.notice = spent_clause(*spent) +
                  ", and so is every agent.fallback provider's, so this session starts on its "
                  "own model and the queue will hold its prompts while the provider holds them "
                  "back";
  return choice;
}

std::string thread_model(const json::object& config, std::string_view provider,
                         std::string_view model) {
  if (provider.empty() || model.empty() ||
      provider == config::string_setting(config, "agent.provider"))
    return std::string(model);
  return config::ProviderModel{std::string(provider), std::string(model)}.text();
}

StartChoice restore_thread_model(const json::object& config, std::string_view recorded) {
  StartChoice choice;
  choice.provider = config::string_setting(config, "agent.provider");
  choice.model = std::string(recorded);
  const auto split = config::split_provider_model(recorded);
  if (split && split->provider != choice.provider && provider_defined(config, split->provider)) {
    choice.provider = split->provider;
    choice.model = split->model;
  }
  return choice;
}

}  // namespace errand::sessions
