#include "core/agent/config_strings.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::agent {

namespace {

std::string string_or_empty(const boost::json::value* value) {
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string();
}

}  // namespace

std::string string_setting(const boost::json::object& config, std::string_view dotted) {
  return string_or_empty(sdk::find_setting(config, dotted));
}

std::string string_member(const boost::json::object& object, std::string_view key) {
  return string_or_empty(object.if_contains(key));
}

}  // namespace errand::agent
