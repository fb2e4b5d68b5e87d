#include <boost/json/serialize.hpp>
#include <set>
#include "core/config/string_settings.hpp"

#include "core/config/reference.hpp"
#include "core/config/schema_type_names.hpp"
#include "core/reference/markdown_cell.hpp"

namespace errand::config {

namespace json = boost::json;
using reference::markdown_cell;

namespace {

const json::object* reference_keyword(const json::object& node, std::string_view keyword) {
  const auto* found = node.if_contains(keyword);
  return found != nullptr && found->is_object() ? &found->as_object() : nullptr;
}

std::string format_name(std::string_view format) {
  if (format == "absolute-path") return "absolute path";
  if (format == "size") return "size";
  if (format == "size-or-share") return "size or share of the host";
  if (format == "number-or-share") return "number or share of the host";
  if (format == "env-name") return "variable name";
  if (format == "hostname-pattern") return "host pattern";
  if (format == "uri") return "URL";
  if (format == "url-path") return "URL path";
  return std::string(format);
}

std::string type_of(const json::object& node);

std::string number_range(const json::object& node, const std::string& name) {
  const auto* minimum = node.if_contains("minimum");
  const auto* maximum = node.if_contains("maximum");
  const auto* above = node.if_contains("exclusiveMinimum");
  const auto text = [](const json::value& v) { return number_text(v.to_number<double>()); };
  if (minimum && maximum) return name + " " + text(*minimum) + "–" + text(*maximum);
  if (minimum) return name + " ≥ " + text(*minimum);
  if (above) return name + " > " + text(*above);
  return name;
}

std::string type_of(const json::object& node) {
  if (const auto* allowed = node.if_contains("enum"); allowed && allowed->is_array()) {
    std::string values;
    for (const auto& value : allowed->as_array())
      values += (values.empty() ? "" : " | ") + json::serialize(value);
    return values;
  }
  if (const auto* any_of = node.if_contains("anyOf"); any_of && any_of->is_array()) {
    std::string types;
    for (const auto& branch : any_of->as_array())
      if (branch.is_object()) types += (types.empty() ? "" : " or ") + type_of(branch.as_object());
    return types;
  }
  if (const auto format = string_member(node, "format"); !format.empty())
    return format_name(format);
  const auto* type = node.if_contains("type");
  if (type == nullptr) return "any";
  if (!type->is_string()) return describe_expected(*type);
  const std::string_view name = type->as_string();
  if (name == "integer") return number_range(node, "integer");
  if (name == "number") return number_range(node, "number");
  if (name == "array") {
    const auto* items = reference_keyword(node, "items");
    return items ? "list of " + type_of(*items) : "list";
  }
  if (name == "object") {
    const auto* values = reference_keyword(node, "additionalProperties");
    return values ? "map of name to " + type_of(*values) : "object";
  }
  return std::string(name);
}

std::string default_of(const json::object& node, bool required) {
  if (const auto* value = node.if_contains("default")) return "`" + json::serialize(*value) + "`";
  if (auto note = string_member(node, "x-errand-default-note"); !note.empty()) return note;
  return required ? "required" : "absent";
}

// A table cell: the schema's words escaped for the cell, then the page's own emphasis.
std::string description_of(const json::object& node) {
  std::string text = markdown_cell(string_member(node, "description"));
  if (node.contains("x-errand-secret"))
    text += " **Secret**: scrubbed from output, blanked in logs.";
  if (auto reason = string_member(node, "x-errand-unsupported"); !reason.empty())
    text += " **Not supported yet**, refused when written: " + markdown_cell(reason) + ".";
  if (auto plugin = string_member(node, "x-errand-plugin"); !plugin.empty())
    text += " (From the plugin " + markdown_cell("`" + plugin + "`") + ".)";
  return text;
}

std::set<std::string> required_of(const json::object& node) {
  std::set<std::string> names;
  if (const auto* required = node.if_contains("required"); required && required->is_array())
    for (const auto& name : required->as_array())
      if (name.is_string()) names.emplace(name.as_string());
  return names;
}

// Rows for every key beneath `node`, dotted from `prefix`, descending into nested objects,
// map values (as <name>) and list items that are objects (as []).
void rows_beneath(const json::object& node, const std::string& prefix, std::string& out) {
  if (const auto* properties = reference_keyword(node, "properties")) {
    const auto required = required_of(node);
    for (const auto& [name, child] : *properties) {
      if (!child.is_object()) continue;
      const std::string dotted =
          prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
      const auto& child_node = child.as_object();
      out += "| " + markdown_cell("`" + dotted + "`") + " | " + markdown_cell(type_of(child_node)) +
             " | " + markdown_cell(default_of(child_node, required.contains(std::string(name)))) +
             " | " + description_of(child_node) + " |\n";
      rows_beneath(child_node, dotted, out);
    }
  }
  if (const auto* values = reference_keyword(node, "additionalProperties"))
    rows_beneath(*values, prefix + ".<name>", out);
  if (const auto* items = reference_keyword(node, "items"))
    rows_beneath(*items, prefix + "[]", out);
  if (const auto* any_of = node.if_contains("anyOf"); any_of && any_of->is_array())
    for (const auto& branch : any_of->as_array())
      if (branch.is_object()) rows_beneath(branch.as_object(), prefix, out);
}

constexpr std::string_view table_head =
    "| Key | Type | Default | Description |\n| --- | --- | --- | --- |\n";

bool is_section(const json::object& node) {
  return string_member(node, "type") == "object" &&
         reference_keyword(node, "properties") != nullptr;
}

}  // namespace

std::string render_reference_markdown(const json::object& schema) {
  std::string out =
      "<!-- Generated by `errand config reference` from the configuration schema; do not edit "
      "by hand. Change the schema and run scripts/regenerate-reference. -->\n\n"
      "# Configuration reference\n\n"
      "Every key the configuration file may hold, as dotted paths. `<name>` stands for a name "
      "you choose, and `[]` for each entry of a list. A default of \"absent\" means the key is "
      "simply not set; \"required\" means the file is refused without it. Secrets are "
      "scrubbed from everything a session reports and blanked when the configuration is "
      "logged. [Configuration](../configuration.md) explains how the file is found, checked "
      "and reloaded.\n";
  const auto* properties = reference_keyword(schema, "properties");
  if (properties == nullptr) return out;
  const auto required = required_of(schema);

  out += "\n## Top level\n\n";
  out += table_head;
  for (const auto& [name, child] : *properties) {
    if (!child.is_object() || is_section(child.as_object())) continue;
    const auto& node = child.as_object();
    out += "| " + markdown_cell("`" + std::string(name) + "`") + " | " +
           markdown_cell(type_of(node)) + " | " +
           markdown_cell(default_of(node, required.contains(std::string(name)))) + " | " +
           description_of(node) + " |\n";
  }
  for (const auto& [name, child] : *properties) {
    if (!child.is_object() || !is_section(child.as_object())) continue;
    const auto& node = child.as_object();
    out += "\n## `" + std::string(name) + "`\n\n";
    out += description_of(node) + " ";
    if (required.contains(std::string(name))) {
      out += "This section is required.";
    } else if (node.contains("default")) {
      out += "Left out, every key in it takes its default.";
    } else {
      out += "Left out, it is absent.";
    }
    out += "\n\n";
    std::string rows;
    rows_beneath(node, std::string(name), rows);
    if (rows.empty()) {
      out += "No keys are defined here unless a plugin contributes them.\n";
    } else {
      out += table_head;
      out += rows;
    }
  }
  return out;
}

}  // namespace errand::config
