#include "core/config/pretty_json.hpp"

#include <boost/json/serialize.hpp>

#include "core/config/schema_type_names.hpp"

namespace errand::config {

namespace json = boost::json;

namespace {

void write_value(const json::value& value, std::size_t depth, std::string& out);

void newline(std::size_t depth, std::string& out) {
  out += '\n';
  out.append(depth * 2, ' ');
}

void write_value(const json::value& value, std::size_t depth, std::string& out) {
  if (value.is_object()) {
    const auto& object = value.as_object();
    if (object.empty()) {
      out += "{}";
      return;
    }
    out += '{';
    bool first = true;
    for (const auto& entry : object) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1, out);
      out += json::serialize(json::value(entry.key()));
      out += ": ";
      write_value(entry.value(), depth + 1, out);
    }
    newline(depth, out);
    out += '}';
  } else if (value.is_array()) {
    const auto& array = value.as_array();
    if (array.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    bool first = true;
    for (const auto& item : array) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1, out);
      write_value(item, depth + 1, out);
    }
    newline(depth, out);
    out += ']';
  } else if (value.is_double()) {
    out += number_text(value.as_double());
  } else {
    out += json::serialize(value);
  }
}

}  // namespace

std::string pretty_json(const json::value& value) {
  std::string out;
  write_value(value, 0, out);
  out += '\n';
  return out;
}

}  // namespace errand::config
