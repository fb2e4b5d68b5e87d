#include "core/config/secrets.hpp"

#include <algorithm>

namespace errand::config {

namespace json = boost::json;

namespace {

// Calls `visit` with every secret field's value slot.
template <class Object, class Visit>
void for_each_secret_field(Object& config, Visit visit) {
  const auto field = [&](auto& section_holder, std::string_view section, std::string_view key) {
    auto* node = section_holder.if_contains(section);
    if (node == nullptr || !node->is_object()) return;
    if (auto* value = node->as_object().if_contains(key)) visit(*value);
  };
  field(config, "chat", "token");
  field(config, "github", "token");
  auto* agent = config.if_contains("agent");
  if (agent == nullptr || !agent->is_object()) return;
  auto* providers = agent->as_object().if_contains("providers");
  if (providers == nullptr || !providers->is_object()) return;
  for (auto& entry : providers->as_object()) {
    if (!entry.value().is_object()) continue;
    if (auto* credential = entry.value().as_object().if_contains("credential")) visit(*credential);
  }
}

}  // namespace

std::vector<std::string> collect_secrets(const json::object& effective) {
  std::vector<std::string> secrets;
  for_each_secret_field(effective, [&](const json::value& value) {
    if (!value.is_string() || value.as_string().size() < shortest_scrubbed_secret) return;
    std::string secret(value.as_string());
    if (std::find(secrets.begin(), secrets.end(), secret) == secrets.end())
      secrets.push_back(std::move(secret));
  });
  return secrets;
}

json::object blank_secrets(const json::object& effective) {
  json::object copy = effective;
  for_each_secret_field(copy, [](json::value& value) { value = "[redacted]"; });
  return copy;
}

}  // namespace errand::config
