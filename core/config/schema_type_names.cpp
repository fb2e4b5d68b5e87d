#include "core/config/schema_type_names.hpp"

#include <boost/json/serialize.hpp>
#include <charconv>
#include <cmath>

namespace errand::config {

namespace json = boost::json;

namespace {

bool matches_one(const json::value& value, std::string_view type) {
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_bool();
  if (type == "null") return value.is_null();
  if (type == "array") return value.is_array();
  if (type == "object") return value.is_object();
  // Boost.JSON reads some numbers (0e40000) as NaN and others (1e400) as infinity; neither is a
  // setting any reader can use.
  if (type == "number")
    return value.is_number() && (!value.is_double() || std::isfinite(value.as_double()));
  // Every reader takes a whole number as an int64: a whole double past that range (1e300) or an
  // unsigned value past it would pass here and then fail the reader after errand accepted it.
  if (type == "integer") {
    if (value.is_int64()) return true;
    constexpr double past_int64 = 9223372036854775808.0;
    return value.is_double() && std::isfinite(value.as_double()) &&
           std::floor(value.as_double()) == value.as_double() && value.as_double() >= -past_int64 &&
           value.as_double() < past_int64;
  }
  return false;
}

std::string name_of(std::string_view type) {
  if (type == "string") return "a string";
  if (type == "boolean") return "true or false";
  if (type == "null") return "null";
  if (type == "array") return "a list";
  if (type == "object") return "an object";
  if (type == "number") return "a number";
  if (type == "integer") return "a whole number";
  return std::string(type);
}

}  // namespace

bool matches_type(const json::value& value, const json::value& type) {
  if (type.is_string()) return matches_one(value, type.as_string());
  if (type.is_array()) {
    for (const auto& one : type.as_array())
      if (one.is_string() && matches_one(value, one.as_string())) return true;
    return false;
  }
  return true;
}

std::string describe_expected(const json::value& type) {
  if (type.is_string()) return name_of(type.as_string());
  std::string text;
  if (type.is_array()) {
    for (const auto& one : type.as_array()) {
      if (!one.is_string()) continue;
      if (!text.empty()) text += " or ";
      text += name_of(one.as_string());
    }
  }
  return text.empty() ? "something else" : text;
}

std::string describe_actual(const json::value& value) {
  switch (value.kind()) {
    case json::kind::string: return "a string";
    case json::kind::bool_: return value.as_bool() ? "true" : "false";
    case json::kind::null: return "null";
    case json::kind::array: return "a list";
    case json::kind::object: return "an object";
    case json::kind::int64:
    case json::kind::uint64: return json::serialize(value);
    case json::kind::double_: return number_text(value.as_double());
  }
  return "something else";
}

std::string number_text(double number) {
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, number).ptr;
  return std::string(buffer, end);
}

std::string describe_branch(const json::object& branch) {
  if (const auto* allowed = branch.if_contains("enum");
      allowed && allowed->is_array() && allowed->as_array().size() == 1)
    return json::serialize(allowed->as_array().front());
  if (const auto* type = branch.if_contains("type")) return describe_expected(*type);
  return "something else";
}

}  // namespace errand::config
