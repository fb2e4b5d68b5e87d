#include "settings.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/url/parse.hpp>
#include <errand/sdk/config_values.hpp>

namespace errand::discord {

bool is_loopback_literal(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(host), ec);
  return !ec && address.is_loopback();
}

std::string check_service_url(std::string_view url, std::string_view secure_scheme,
                              std::string_view plain_scheme) {
  const auto parsed = boost::urls::parse_absolute_uri(url);
  if (!parsed) return "\"" + std::string(url) + "\" is not an absolute URL";
  const auto scheme = parsed->scheme();
  if (parsed->host().empty()) return "\"" + std::string(url) + "\" names no host";
  if (scheme == secure_scheme) return {};
  if (scheme == plain_scheme) {
    if (is_loopback_literal(parsed->host())) return {};
    return std::string(plain_scheme) +
           ":// is only accepted to a loopback address (127.0.0.1, ::1) " +
           "for a local test server; use " + std::string(secure_scheme) + "://";
  }
  return "the scheme must be " + std::string(secure_scheme) + ":// (or " +
         std::string(plain_scheme) + ":// to a loopback address), not \"" + std::string(scheme) +
         "\"";
}

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
    } else if (auto why = check_service_url(v->as_string(), "https", "http"); !why.empty()) {
      problems.add("chat.apiBase", why);
    }
  }
  if (const auto* v = sdk::find_setting(config, "chat.gatewayUrl")) {
    if (!v->is_string()) {
      problems.add("chat.gatewayUrl", "must be a string URL such as \"wss://gateway.discord.gg\"");
    } else if (auto why = check_service_url(v->as_string(), "wss", "ws"); !why.empty()) {
      problems.add("chat.gatewayUrl", why);
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
  while (!s.api_base.empty() && s.api_base.back() == '/') s.api_base.pop_back();
  if (const auto* v = string_at(config, "chat.gatewayUrl")) s.gateway_url = std::string(*v);
  if (const auto* v = string_at(config, "chat.guildId")) s.guild_id = std::string(*v);
  if (const auto* v = sdk::find_setting(config, "chat.startOnMention"); v && v->is_bool())
    s.start_on_mention = v->as_bool();
  return s;
}

}  // namespace errand::discord
