#include "core/config/schema_leaves.hpp"

namespace errand::config {

namespace json = boost::json;

namespace {

const json::object* object_member(const json::object& node, std::string_view keyword) {
  const auto* found = node.if_contains(keyword);
  return found != nullptr && found->is_object() ? &found->as_object() : nullptr;
}

std::string joined(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

void collect(const json::object& node, const std::string& key, std::string unsupported,
             std::vector<SchemaLeaf>& leaves) {
  if (const auto* reason = node.if_contains("x-errand-unsupported");
      reason != nullptr && reason->is_string() && unsupported.empty())
    unsupported = std::string(reason->as_string());
  const auto* type = node.if_contains("type");
  const bool object = type != nullptr && *type == "object";
  const auto* properties = object ? object_member(node, "properties") : nullptr;
  const auto* values = object ? object_member(node, "additionalProperties") : nullptr;
  if (!object || (properties == nullptr && values == nullptr)) {
    if (!key.empty()) leaves.push_back({key, unsupported});
    return;
  }
  // A section with no keys of its own (broker, before its plugin contributes) has no leaves.
  if (properties != nullptr) {
    for (const auto& [name, child] : *properties)
      if (child.is_object()) collect(child.as_object(), joined(key, name), unsupported, leaves);
  }
  if (values != nullptr) collect(*values, joined(key, "<name>"), unsupported, leaves);
}

}  // namespace

std::vector<SchemaLeaf> schema_leaves(const json::object& schema) {
  std::vector<SchemaLeaf> leaves;
  collect(schema, "", "", leaves);
  return leaves;
}

}  // namespace errand::config
