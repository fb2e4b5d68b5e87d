#include "plugins/chat-discord/settings.hpp"

#include <errand/sdk/config_values.hpp>
#include <filesystem>

#include "plugins/chat-discord/service_url.hpp"
#include "plugins/chat-discord/tls_client.hpp"

namespace errand::discord {

namespace {

const boost::json::string* string_at(const boost::json::object& config, std::string_view key) {
  const auto* v = sdk::find_setting(config, key);
  return v != nullptr && v->is_string() ? &v->as_string() : nullptr;
}

bool is_snowflake(std::string_view s) {
  if (s.empty() || s.size() > 20) return false;
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

void validate_discord_config(const boost::json::object& config, sdk::ConfigProblems& problems) {
  if (const auto* v = sdk::find_setting(config, "chat.apiBase")) {
    if (!v->is_string()) {
      problems.add("chat.apiBase", "must be a string URL such as \"https://discord.com/api/v10\"");
    } else if (auto url = parse_service_url(v->as_string(), UrlRole::rest_base); !url) {
      problems.add("chat.apiBase", url.error().message);
    }
  }
  if (const auto* v = sdk::find_setting(config, "chat.gatewayUrl")) {
    if (!v->is_string()) {
      problems.add("chat.gatewayUrl", "must be a string URL such as \"wss://gateway.discord.gg\"");
    } else if (auto url = parse_service_url(v->as_string(), UrlRole::gateway); !url) {
      problems.add("chat.gatewayUrl", url.error().message);
    }
  }
  if (const auto* v = sdk::find_setting(config, "chat.caFile")) {
    if (!v->is_string() || !std::filesystem::path(std::string(v->as_string())).is_absolute()) {
      problems.add("chat.caFile",
                   "must be an absolute path to a PEM file of certificate authorities");
    } else if (auto context = make_client_tls_context(std::string(v->as_string())); !context) {
      problems.add("chat.caFile", context.error().message);
    }
  }
  if (const auto* v = sdk::find_setting(config, "chat.guildId")) {
    if (!v->is_string() || !is_snowflake(v->as_string()))
      problems.add("chat.guildId",
                   "must be a Discord id written as a string of digits (enable Developer Mode "
                   "in Discord, then right-click the server and choose Copy Server ID)");
  }
  if (const auto* v = sdk::find_setting(config, "chat.channelId")) {
    if (!v->is_string() || !is_snowflake(v->as_string()))
      problems.add("chat.channelId",
                   "must be a Discord channel id written as a string of digits (right-click "
                   "the channel with Developer Mode on and choose Copy Channel ID)");
  }
}

sdk::Result<DiscordSettings> read_discord_settings(const boost::json::object& config) {
  sdk::ConfigProblems problems;
  validate_discord_config(config, problems);
  if (!problems.empty()) {
    const auto& first = problems.all().front();
    return sdk::make_error(first.path + ": " + first.message, sdk::Error::Kind::refused);
  }
  DiscordSettings s;
  const auto* token = string_at(config, "chat.token");
  if (token == nullptr || token->size() < 8)
    return sdk::make_error(
        "chat.token is missing or shorter than 8 bytes; put the bot token "
        "from the Discord developer portal there",
        sdk::Error::Kind::refused);
  s.token = std::string(*token);
  const auto* channel = string_at(config, "chat.channelId");
  if (channel == nullptr)
    return sdk::make_error("chat.channelId is missing; name the one channel the bot serves",
                           sdk::Error::Kind::refused);
  s.channel_id = std::string(*channel);
  if (const auto* v = string_at(config, "chat.apiBase")) s.api_base = std::string(*v);
  if (const auto* v = string_at(config, "chat.caFile")) s.ca_file = std::string(*v);
  if (const auto* v = string_at(config, "chat.gatewayUrl")) s.gateway_url = std::string(*v);
  if (const auto* v = string_at(config, "chat.guildId")) s.guild_id = std::string(*v);
  if (const auto* v = sdk::find_setting(config, "chat.startOnMention"); v && v->is_bool())
    s.start_on_mention = v->as_bool();
  return s;
}

}  // namespace errand::discord
