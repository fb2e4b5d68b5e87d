#include "core/sandbox/inert_backend_keys.hpp"

namespace errand::sandbox {

namespace json = boost::json;

namespace {

constexpr std::string_view kSandboxPluginPrefix = "sandbox-";

const json::object* properties_of(const json::object& schema) {
  const auto* properties = schema.if_contains("properties");
  return properties != nullptr && properties->is_object() ? &properties->as_object() : nullptr;
}

// The sandbox plugin that contributed this node, or "" for the core's own keys and keys another
// kind of plugin (the broker) contributed, which act whatever the backend.
std::string_view contributing_backend(const json::object& node) {
  const auto* owner = node.if_contains("x-errand-plugin");
  if (owner == nullptr || !owner->is_string()) return {};
  const std::string_view plugin = owner->as_string();
  if (plugin.substr(0, kSandboxPluginPrefix.size()) != kSandboxPluginPrefix) return {};
  return plugin.substr(kSandboxPluginPrefix.size());
}

// Walks the written object beside its schema: a fragment may name a nested section
// (sandbox.egress), so a contributed key can sit at any depth.
void collect(const json::object& schema, const json::object& written, const std::string& prefix,
             std::string_view backend, std::vector<std::string>& out) {
  const auto* properties = properties_of(schema);
  if (properties == nullptr) return;
  for (const auto& [name, value] : written) {
    const auto* node = properties->if_contains(name);
    if (node == nullptr || !node->is_object()) continue;
    const std::string key = prefix + "." + std::string(name);
    const auto owner = contributing_backend(node->as_object());
    if (!owner.empty() && owner != backend) {
      out.push_back(key + " does nothing under " + std::string(backend) + ": only the " +
                    std::string(owner) + " backend reads it (sandbox.backend \"" +
                    std::string(owner) + "\")");
      continue;
    }
    if (value.is_object()) collect(node->as_object(), value.as_object(), key, backend, out);
  }
}

}  // namespace

std::vector<std::string> inert_backend_keys(const json::object& schema, const json::object& written,
                                            std::string_view backend) {
  std::vector<std::string> out;
  const auto* properties = properties_of(schema);
  const auto* section_schema = properties ? properties->if_contains("sandbox") : nullptr;
  const auto* section = written.if_contains("sandbox");
  if (section_schema == nullptr || !section_schema->is_object() || section == nullptr ||
      !section->is_object())
    return out;
  collect(section_schema->as_object(), section->as_object(), "sandbox", backend, out);
  return out;
}

void note_inert_backend_keys(const json::object& schema, const json::object& written,
                             std::string_view backend, sdk::EnforcementReport& report) {
  for (auto& note : inert_backend_keys(schema, written, backend))
    report.notes.push_back(std::move(note));
}

}  // namespace errand::sandbox
