#pragma once

// The part of the effective configuration the Discord transport reads: the core-owned chat.*
// keys it needs and the keys this plugin contributes (apiBase, gatewayUrl, guildId, caFile).

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
    "description": "Base URL of Discord's REST API, with or without a path and a trailing slash, without user information, query or fragment. https://, or http:// to a loopback address for a Discord-compatible test server."},
  "gatewayUrl": {"type": "string",
    "description": "Gateway URL used instead of the one GET /gateway/bot returns, with or without a path or a query of its own (v and encoding are always errand's). wss://, or ws:// to a loopback address."},
  "caFile": {"type": "string",
    "description": "A PEM file of certificate authorities the plugin trusts for its https:// and wss:// connections (REST, gateway, attachments), in place of the system store; for a Discord-compatible server behind a private CA. An absolute path. Left out, the system store is used."},
  "guildId": {"type": "string", "pattern": "^[0-9]{1,20}$",
    "description": "Guild (server) where slash commands are registered. When absent it is read from the served channel."}
}}})";

struct DiscordSettings {
  std::string token;
  std::string channel_id;
  std::string api_base = kDefaultApiBase;
  std::string gateway_url;  // empty: use what /gateway/bot says
  std::string guild_id;     // empty: learn it from the served channel
  std::string ca_file;      // empty: the system's trust store
  bool start_on_mention = false;
};

// Reports every problem with the keys this plugin owns.
void validate_discord_config(const boost::json::object& config, sdk::ConfigProblems& problems);

// Reads the settings from a validated configuration; an error names the first bad key.
sdk::Result<DiscordSettings> read_discord_settings(const boost::json::object& config);

}  // namespace errand::discord
