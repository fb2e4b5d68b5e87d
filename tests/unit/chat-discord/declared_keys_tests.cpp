// The host hands the Discord transport only the keys it declares (its config_schema's and its
// config_reads); a key it reads but forgot to declare would be absent, and quietly at its
// default or refused as missing.

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <errand/sdk/config_problems.hpp>

#include "core/config/plugin_view.hpp"
#include "plugins/chat-discord/discord_transport.hpp"
#include "plugins/chat-discord/settings.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/support/temp_dir.hpp"

using namespace errand::discord;

TEST_CASE("what Discord reads from the keys it declares is what it reads from the whole file") {
  errand::test::TempDir dir;
  const auto ca =
      errand::fakes::make_test_ca(dir.path(), "errand declared keys CA", "DNS:localhost");
  auto whole = boost::json::parse(R"({
    "chat": {"transport": "discord", "token": "tok-0123456789", "channelId": "42",
             "apiBase": "https://discord.test/api/v10", "gatewayUrl": "wss://gateway.test",
             "guildId": "7", "startOnMention": true, "allowedUserIds": ["1"]},
    "agent": {"providers": {"p": {"credential": "provider-key-0123456789"}}},
    "sandbox": {"backend": "bailey"}
  })")
                   .as_object();
  whole["chat"].as_object()["caFile"] = ca.ca_cert.string();
  auto keys =
      errand::config::plugin_keys(DiscordTransport::config_schema, DiscordTransport::config_reads);
  REQUIRE(keys.has_value());
  const auto view = errand::config::plugin_view(whole, keys->all());
  CHECK(view.if_contains("agent") == nullptr);
  CHECK(view.if_contains("sandbox") == nullptr);

  auto settings = read_discord_settings(view);
  if (!settings) FAIL(settings.error().message);
  CHECK(settings->token == "tok-0123456789");
  CHECK(settings->channel_id == "42");
  CHECK(settings->api_base == "https://discord.test/api/v10");
  CHECK(settings->gateway_url == "wss://gateway.test");
  CHECK(settings->ca_file == ca.ca_cert.string());
  CHECK(settings->guild_id == "7");
  CHECK(settings->start_on_mention);

  errand::sdk::ConfigProblems problems;
  validate_discord_config(view, problems);
  CHECK(problems.all().empty());
}
