#include "core/config/provider_checks.hpp"

#include "common/ascii_case.hpp"

#include <array>
#include <errand/sdk/config_values.hpp>
#include <optional>

#include "core/config/suggest.hpp"

namespace errand::config {

namespace json = boost::json;

namespace {

struct GuardedKey {
  std::string_view name;
  std::string_view prefix;  // a key starting with this reads as an attempt at the name
};

constexpr std::array<GuardedKey, 3> guarded_keys{{
    {"placement", "place"},
    {"capabilities", "capab"},
    {"strictCapabilities", "strict"},
}};

constexpr std::array<std::string_view, 10> provider_keys{
    "credential",         "credentialName",        "baseUrl", "kind",  "placement", "capabilities",
    "strictCapabilities", "maxConcurrentRequests", "broker",  "models"};

std::optional<std::string_view> guarded_key_meant(std::string_view key) {
  const std::string lowered = common::ascii_lower(key);
  for (const auto& guarded : guarded_keys) {
    if (equal_ignoring_case(key, guarded.name) || edit_distance(key, guarded.name) <= 2 ||
        lowered.starts_with(guarded.prefix))
      return guarded.name;
  }
  return std::nullopt;
}

bool is_provider_key(std::string_view key) {
  for (const auto known : provider_keys)
    if (key == known) return true;
  return false;
}

void check_one(const std::string& path, const json::object& provider,
               std::vector<Problem>& problems) {
  for (const auto& entry : provider) {
    const std::string_view key = entry.key();
    if (is_provider_key(key)) continue;
    const auto meant = guarded_key_meant(key);
    if (!meant) continue;
    const std::string at = path + "." + std::string(key);
    problems.push_back({at, "`" + at + "` reads as a misspelling of `" + std::string(*meant) +
                                "`, and a misspelt one would leave the provider's route open; "
                                "correct it to `" +
                                std::string(*meant) + "`, or give your own key another name"});
  }
  const auto* strict = provider.if_contains("strictCapabilities");
  if (strict != nullptr && *strict == true && !provider.contains("capabilities")) {
    const std::string at = path + ".strictCapabilities";
    problems.push_back({at, "`" + at +
                                "` is true but the provider has no `capabilities` list to be "
                                "strict about; add the list of calls the key may make, or "
                                "remove strictCapabilities"});
  }
}

}  // namespace

void check_provider_definitions(const json::object& config, std::vector<Problem>& problems) {
  const auto* providers = sdk::find_setting(config, "agent.providers");
  if (providers == nullptr || !providers->is_object()) return;
  for (const auto& [name, definition] : providers->as_object()) {
    if (definition.is_object())
      check_one("agent.providers." + std::string(name), definition.as_object(), problems);
  }
}

std::map<std::string, std::string> credential_carriers(const json::object& config) {
  std::map<std::string, std::string> carriers;
  if (const auto* variable = sdk::find_setting(config, "agent.credentialVariable");
      variable != nullptr && variable->is_string())
    carriers[std::string(variable->as_string())] = "the agent's provider credential";
  const auto* providers = sdk::find_setting(config, "agent.providers");
  if (providers == nullptr || !providers->is_object()) return carriers;
  for (const auto& [name, definition] : providers->as_object()) {
    if (!definition.is_object()) continue;
    const auto* variable = definition.as_object().if_contains("credentialName");
    if (variable != nullptr && variable->is_string())
      carriers[std::string(variable->as_string())] =
          "the credential of provider \"" + std::string(name) + "\"";
  }
  return carriers;
}

}  // namespace errand::config
