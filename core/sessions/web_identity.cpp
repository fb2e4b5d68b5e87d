#include "core/sessions/web_identity.hpp"

#include "core/config/string_settings.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::sessions {

bool web_interface_drives(const boost::json::object& config) {
  const auto* web = sdk::find_setting(config, "web");
  if (web == nullptr || !web->is_object()) return false;
  const auto* observer = web->as_object().if_contains("observer");
  return observer == nullptr || !observer->is_bool() || !observer->as_bool();
}

bool web_interface_only(const boost::json::object& config) {
  const auto* chat = sdk::find_setting(config, "chat");
  const auto* web = sdk::find_setting(config, "web");
  return (chat == nullptr || !chat->is_object()) && web != nullptr && web->is_object();
}

std::string served_channel_id(const boost::json::object& config) {
  if (web_interface_only(config)) return std::string(kWebChannelId);
  return config::string_setting(config, "chat.channelId");
}

}  // namespace errand::sessions
