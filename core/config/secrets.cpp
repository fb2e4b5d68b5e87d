#include "core/config/secrets.hpp"

#include <algorithm>

namespace errand::config {

namespace json = boost::json;

namespace {

const json::object* secret_object_at(const json::object& node, std::string_view key) {
  const auto* value = node.if_contains(key);
  return value != nullptr && value->is_object() ? &value->as_object() : nullptr;
}

// Walks the configuration beside its schema and calls `visit` with the value slot of every
// field the schema marks secret: named properties, and the entries of maps whose
// additionalProperties is a schema (agent.providers). Object may be const for a read-only walk.
template <class Object, class Visit>
void for_each_secret_field(Object& config, const json::object& schema, Visit& visit) {
  const auto* properties = secret_object_at(schema, "properties");
  const auto* map_entries = secret_object_at(schema, "additionalProperties");
  for (auto& entry : config) {
    const json::object* field_schema =
        properties != nullptr ? secret_object_at(*properties, entry.key()) : nullptr;
    if (field_schema == nullptr) field_schema = map_entries;
    if (field_schema == nullptr) continue;
    auto& value = entry.value();
    if (field_schema->contains("x-errand-secret")) {
      visit(value);
    } else if (value.is_object()) {
      for_each_secret_field(value.as_object(), *field_schema, visit);
    }
  }
}

}  // namespace

std::vector<std::string> collect_secrets(const json::object& effective,
                                         const json::object& schema) {
  std::vector<std::string> secrets;
  auto collect = [&](const json::value& value) {
    if (!value.is_string() || value.as_string().size() < shortest_scrubbed_secret) return;
    std::string secret(value.as_string());
    if (std::find(secrets.begin(), secrets.end(), secret) == secrets.end())
      secrets.push_back(std::move(secret));
  };
  for_each_secret_field(effective, schema, collect);
  return secrets;
}

json::object blank_secrets(const json::object& effective, const json::object& schema) {
  json::object copy = effective;
  auto blank = [](json::value& value) { value = "[redacted]"; };
  for_each_secret_field(copy, schema, blank);
  return copy;
}

}  // namespace errand::config
