#pragma once

// The part of the effective configuration the Discord transport reads: the core-owned chat.*
// keys it needs and the keys this plugin contributes (apiBase, gatewayUrl, guildId).

#include <boost/json/object.hpp>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::discord {

inline constexpr const char* kDefaultApiBase = "https://discord.com/api/v10";

// The schema fragment merged into the core's "chat" object.
inline constexpr const char* kConfigSchema = R"({"chat": {"properties": {
  "apiBase": {"type": "string", "default": "https://discord.com/api/v10",
    "description": "Base URL of Discord's REST API. https://, or http:// to a loopback address for a Discord-compatible test server."},
  "gatewayUrl": {"type": "string",
    "description": "Gateway URL used instead of the one GET /gateway/bot returns. wss://, or ws:// to a loopback address."},
  "guildId": {"type": "string", "pattern": "^[0-9]{1,20}$",
    "description": "Guild (server) where slash commands are registered. When absent it is read from the served channel."}
}}})";

struct DiscordSettings {
  std::string token;
  std::string channel_id;
  std::string api_base = kDefaultApiBase;
  std::string gateway_url;  // empty: use what /gateway/bot says
  std::string guild_id;     // empty: learn it from the served channel
  bool start_on_mention = false;
};

// Reports every problem with the keys this plugin owns.
void validate_discord_config(const boost::json::object& config, sdk::ConfigProblems& problems);

// Reads the settings from a validated configuration; an error names the first bad key.
sdk::Result<DiscordSettings> read_discord_settings(const boost::json::object& config);

// True for a host that is a loopback literal: 127.0.0.0/8, ::1 or [::1].
bool is_loopback_literal(std::string_view host);

// Checks a URL against the allowed schemes: secure_scheme anywhere, plain_scheme to loopback.
// Returns an empty string when acceptable, else the reason.
std::string check_service_url(std::string_view url, std::string_view secure_scheme,
                              std::string_view plain_scheme);

}  // namespace errand::discord
