#include "core/config/schema_builders.hpp"

namespace errand::config::schema_nodes {

namespace json = boost::json;

json::object text(std::string_view description) {
  return {{"type", "string"}, {"description", description}};
}

json::object whole_number(std::string_view description, std::int64_t minimum,
                          std::optional<std::int64_t> maximum) {
  json::object node{{"type", "integer"}, {"description", description}, {"minimum", minimum}};
  if (maximum) node["maximum"] = *maximum;
  return node;
}

json::object flag(std::string_view description) {
  return {{"type", "boolean"}, {"description", description}};
}

json::object one_of(std::string_view description, std::initializer_list<std::string_view> values) {
  json::array allowed;
  for (const auto value : values) allowed.emplace_back(value);
  return {{"type", "string"}, {"description", description}, {"enum", std::move(allowed)}};
}

json::object absolute_path(std::string_view description) {
  return {{"type", "string"}, {"description", description}, {"format", "absolute-path"}};
}

json::object size(std::string_view description) {
  return {{"type", json::array{"string", "integer"}},
          {"description", description},
          {"format", "size"},
          {"x-errand-hint",
           "Write a size such as \"512m\" or \"4g\" (k, m, g, t are powers of 1024), or a "
           "whole number of bytes."}};
}

json::object list_of(std::string_view description, json::object item) {
  return {{"type", "array"}, {"description", description}, {"items", std::move(item)}};
}

json::object map_of(std::string_view description, json::object value) {
  return {
      {"type", "object"}, {"description", description}, {"additionalProperties", std::move(value)}};
}

json::object section(std::string_view description,
                     std::initializer_list<std::pair<std::string_view, json::object>> properties,
                     std::initializer_list<std::string_view> required) {
  json::object props;
  for (const auto& [name, node] : properties) props[name] = node;
  json::object node{{"type", "object"},
                    {"description", description},
                    {"properties", std::move(props)},
                    {"additionalProperties", false}};
  if (required.size() > 0) {
    json::array names;
    for (const auto name : required) names.emplace_back(name);
    node["required"] = std::move(names);
  }
  return node;
}

json::object defaulted(json::object node, json::value default_value) {
  node["default"] = std::move(default_value);
  return node;
}

json::object secret(json::object node) {
  node["x-errand-secret"] = true;
  return node;
}

json::object hinted(json::object node, std::string_view hint) {
  node["x-errand-hint"] = hint;
  return node;
}

json::object unsupported(json::object node, std::string_view reason) {
  node.erase("default");
  node["x-errand-unsupported"] = reason;
  return node;
}

json::object with(json::object node, std::string_view keyword, json::value value) {
  node[keyword] = std::move(value);
  return node;
}

}  // namespace errand::config::schema_nodes
