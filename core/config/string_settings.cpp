#include "core/config/string_settings.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::config {

namespace {

std::string string_or(const boost::json::value* value, std::string_view fallback) {
  return value != nullptr && value->is_string() ? std::string(value->as_string())
                                                : std::string(fallback);
}

}  // namespace

std::string string_setting(const boost::json::object& config, std::string_view dotted,
                           std::string_view fallback) {
  return string_or(sdk::find_setting(config, dotted), fallback);
}

std::string string_member(const boost::json::object& object, std::string_view key,
                          std::string_view fallback) {
  return string_or(object.if_contains(key), fallback);
}

std::uint64_t whole_setting(const boost::json::object& config, std::string_view dotted,
                            std::uint64_t fallback) {
  const auto* value = sdk::find_setting(config, dotted);
  if (value == nullptr) return fallback;
  if (value->is_uint64()) return value->as_uint64();
  if (value->is_int64() && value->as_int64() > 0)
    return static_cast<std::uint64_t>(value->as_int64());
  return fallback;
}

}  // namespace errand::config
