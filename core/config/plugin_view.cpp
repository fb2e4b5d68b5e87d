#include "core/config/plugin_view.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <errand/sdk/config_values.hpp>

namespace errand::config {

namespace json = boost::json;

namespace {

// Segments of letters, digits, '_' and '-' joined by single dots: the shape of every key the
// schema defines.
bool is_dotted_key(std::string_view key) {
  if (key.empty() || key.front() == '.' || key.back() == '.') return false;
  char previous = '.';
  for (const char c : key) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
    if (!word && !(c == '.' && previous != '.')) return false;
    previous = c;
  }
  return true;
}

std::vector<std::string> own_keys(const char* schema_json) {
  std::vector<std::string> keys;
  if (schema_json == nullptr) return keys;
  json::error_code ec;
  const auto parsed = json::parse(schema_json, ec);
  if (ec || !parsed.is_object()) return keys;
  for (const auto& [section, fragment] : parsed.as_object()) {
    const auto* properties =
        fragment.is_object() ? fragment.as_object().if_contains("properties") : nullptr;
    if (properties == nullptr || !properties->is_object()) continue;
    for (const auto& [name, node] : properties->as_object())
      keys.push_back(std::string(section) + "." + std::string(name));
  }
  return keys;
}

sdk::Error bad_reads(const std::string& why) {
  return sdk::make_error("its config_reads " + why +
                         "; it must be a JSON array of dotted configuration keys such as "
                         "[\"agent.model\"]");
}

}  // namespace

std::vector<std::string> PluginKeys::all() const {
  std::vector<std::string> keys = own;
  keys.insert(keys.end(), reads.begin(), reads.end());
  return keys;
}

sdk::Result<PluginKeys> plugin_keys(const char* schema_json, const char* reads_json) {
  PluginKeys keys;
  keys.own = own_keys(schema_json);
  if (reads_json == nullptr) return keys;
  json::error_code ec;
  const auto parsed = json::parse(reads_json, ec);
  if (ec) return bad_reads("is not valid JSON (" + ec.message() + ")");
  if (!parsed.is_array()) return bad_reads("is " + json::serialize(parsed) + ", not an array");
  for (const auto& entry : parsed.as_array()) {
    if (!entry.is_string() || !is_dotted_key(entry.as_string()))
      return bad_reads("holds " + json::serialize(entry) + ", which is not a dotted key");
    keys.reads.emplace_back(entry.as_string());
  }
  return keys;
}

json::object plugin_view(const json::object& effective, const std::vector<std::string>& keys) {
  json::object view;
  for (const auto& key : keys) {
    const auto* value = sdk::find_setting(effective, key);
    if (value == nullptr) continue;
    json::object* at = &view;
    std::string_view rest = key;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      json::value& child = (*at)[rest.substr(0, dot)];
      if (!child.is_object()) child = json::object{};
      at = &child.as_object();
      rest.remove_prefix(dot + 1);
    }
    (*at)[rest] = *value;
  }
  return view;
}

}  // namespace errand::config
