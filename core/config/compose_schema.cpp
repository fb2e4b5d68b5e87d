#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <string>

#include "core/config/schema.hpp"

namespace errand::config {

namespace json = boost::json;

namespace {

// Object is json::object or const json::object, so the one walk serves both lookups.
template <class Object>
Object* find_section(Object& schema, std::string_view dotted) {
  Object* at = &schema;
  while (!dotted.empty()) {
    const auto dot = dotted.find('.');
    const auto name = dotted.substr(0, dot);
    auto* properties = at->if_contains("properties");
    if (properties == nullptr || !properties->is_object()) return nullptr;
    auto* child = properties->as_object().if_contains(name);
    if (child == nullptr || !child->is_object()) return nullptr;
    at = &child->as_object();
    const auto* type = at->if_contains("type");
    if (type == nullptr || !type->is_string() || type->as_string() != "object") return nullptr;
    dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
  }
  return at;
}

// A key of any kind (a section, a value, a map) the schema defines at dotted.
bool defines_key(const json::object& schema, std::string_view dotted) {
  const json::object* at = &schema;
  while (true) {
    const auto dot = dotted.find('.');
    const auto* properties = at->if_contains("properties");
    if (properties == nullptr || !properties->is_object()) return false;
    const auto* child = properties->as_object().if_contains(dotted.substr(0, dot));
    if (child == nullptr || !child->is_object()) return false;
    if (dot == std::string_view::npos) return true;
    at = &child->as_object();
    dotted.remove_prefix(dot + 1);
  }
}

class FragmentMerger {
 public:
  FragmentMerger(json::object& schema, std::vector<Problem>& problems)
      : schema_(schema), problems_(problems) {}

  // Run once every fragment is merged, since a plugin may read a key another plugin adds.
  void check_reads(const PluginContribution& contribution) {
    plugin_ = contribution.plugin;
    for (const auto& key : contribution.reads) {
      if (!defines_key(schema_, key))
        refuse(key, "its config_reads names `" + key + "`, which no schema of errand defines");
    }
  }

  void merge(const PluginContribution& contribution) {
    plugin_ = contribution.plugin;
    json::error_code ec;
    const json::value parsed = json::parse(contribution.schema_json, ec);
    if (ec) {
      refuse("", "its config_schema is not valid JSON (" + ec.message() + ")");
      return;
    }
    if (!parsed.is_object()) {
      refuse("", "its config_schema must be a JSON object mapping a section to a fragment");
      return;
    }
    for (const auto& [section_name, fragment] : parsed.as_object())
      merge_section(section_name, fragment);
  }

 private:
  void refuse(const std::string& path, const std::string& what) {
    problems_.push_back({path, "plugin `" + plugin_ + "`: " + what +
                                   "; the plugin cannot be used until it is fixed, so remove "
                                   "it from the plugin path or install a corrected build"});
  }

  void merge_section(std::string_view section_name, const json::value& fragment) {
    const std::string section(section_name);
    json::object* target = section.empty() ? nullptr : find_section(schema_, section);
    if (target == nullptr) {
      refuse(section,
             "its config_schema names the section `" + section + "`, which errand does not have");
      return;
    }
    if (!fragment.is_object()) {
      refuse(section, "its fragment for `" + section + "` must be an object");
      return;
    }
    for (const auto& [keyword, value] : fragment.as_object()) {
      if (keyword == "properties") {
        merge_properties(section, *target, value);
      } else if (keyword == "required") {
        merge_required(section, *target, value);
      } else if (keyword == "type" && value == "object") {
        continue;  // restates what the section is; harmless
      } else {
        refuse(section, "its fragment for `" + section + "` carries `" + std::string(keyword) +
                            "`; a fragment may contribute only properties and required");
      }
    }
  }

  void merge_properties(const std::string& section, json::object& target,
                        const json::value& properties) {
    if (!properties.is_object()) {
      refuse(section, "the properties it gives for `" + section + "` are not an object");
      return;
    }
    json::object& existing = target["properties"].as_object();
    for (const auto& [name, node] : properties.as_object()) {
      const std::string dotted = section + "." + std::string(name);
      if (const auto* already = existing.if_contains(name)) {
        const auto* owner =
            already->is_object() ? already->as_object().if_contains("x-errand-plugin") : nullptr;
        const std::string by = owner != nullptr && owner->is_string()
                                   ? "the plugin `" + std::string(owner->as_string()) + "`"
                                   : "errand itself";
        refuse(dotted, "it redefines `" + dotted + "`, which " + by + " defines already");
        continue;
      }
      if (!node.is_object()) {
        refuse(dotted, "its schema for `" + dotted + "` is not an object");
        continue;
      }
      json::object contributed = node.as_object();
      contributed["x-errand-plugin"] = plugin_;
      existing[name] = std::move(contributed);
    }
  }

  void merge_required(const std::string& section, json::object& target,
                      const json::value& required) {
    if (!required.is_array()) {
      refuse(section, "its required list for `" + section + "` is not a list");
      return;
    }
    json::value& list = target["required"];
    if (!list.is_array()) list = json::array{};
    const auto& properties = target["properties"].as_object();
    for (const auto& name : required.as_array()) {
      if (!name.is_string() || !properties.contains(name.as_string())) {
        refuse(section, "its required list for `" + section + "` names " + json::serialize(name) +
                            ", which is not a key of that section");
        continue;
      }
      list.as_array().push_back(name);
    }
  }

  json::object& schema_;
  std::vector<Problem>& problems_;
  std::string plugin_;
};

}  // namespace

const json::object* find_section_schema(const json::object& schema, std::string_view dotted) {
  return find_section(schema, dotted);
}

boost::system::result<json::object, std::vector<Problem>> compose_schema(
    const std::vector<PluginContribution>& contributions) {
  json::object schema = core_schema();
  std::vector<Problem> problems;
  FragmentMerger merger(schema, problems);
  for (const auto& contribution : contributions) {
    if (contribution.schema_json.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    merger.merge(contribution);
  }
  for (const auto& contribution : contributions) merger.check_reads(contribution);
  if (!problems.empty()) return problems;
  return schema;
}

}  // namespace errand::config
