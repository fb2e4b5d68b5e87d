#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

PluginContribution discord_like() {
  PluginContribution plugin;
  plugin.plugin = "chat-discord";
  plugin.schema_json = R"({"chat": {"properties": {
      "apiBase": {"type": "string", "format": "uri", "default": "https://discord.com/api/v10",
                  "description": "The REST base URL."},
      "guildId": {"type": "string", "description": "A guild for slash commands."}
  }}})";
  return plugin;
}

}  // namespace

TEST_CASE("the core schema is a JSON Schema with a description for every key", "[config][schema]") {
  const auto schema = core_schema();
  CHECK(schema.at("$schema") == "https://json-schema.org/draft/2020-12/schema");
  CHECK(schema.at("type") == "object");
  const auto* token = find_section_schema(schema, "chat");
  REQUIRE(token != nullptr);
  CHECK(token->at("properties").at("token").at("x-errand-secret") == true);
  CHECK(find_section_schema(schema, "sandbox.egress") != nullptr);
  CHECK(find_section_schema(schema, "nothing") == nullptr);
}

TEST_CASE("a plugin's fragment is merged into its section", "[config][schema]") {
  const auto composed = compose_schema({discord_like()});
  REQUIRE(composed.has_value());
  const auto& chat = find_section_schema(*composed, "chat")->at("properties").as_object();
  REQUIRE(chat.contains("apiBase"));
  CHECK(chat.at("apiBase").at("x-errand-plugin") == "chat-discord");
  CHECK(chat.contains("token"));

  auto config = minimal_config();
  set(config, "chat.apiBase", "http://127.0.0.1:9000/api");
  CHECK(load_core(config).has_error());
  const auto loaded =
      load_config_text(boost::json::serialize(config), "/test/config.json", *composed, {});
  REQUIRE(loaded.has_value());
  CHECK(loaded->effective.at("chat").at("apiBase") == "http://127.0.0.1:9000/api");
  const auto defaulted =
      load_config_text(boost::json::serialize(minimal_config()), "/t", *composed, {});
  REQUIRE(defaulted.has_value());
  CHECK(defaulted->effective.at("chat").at("apiBase") == "https://discord.com/api/v10");
}

TEST_CASE("a fragment may make its keys required", "[config][schema]") {
  auto plugin = discord_like();
  plugin.schema_json = R"({"chat": {"properties": {"guildId": {"type": "string",
      "description": "A guild."}}, "required": ["guildId"]}})";
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_value());
  const auto loaded =
      load_config_text(boost::json::serialize(minimal_config()), "/t", *composed, {});
  REQUIRE(loaded.has_error());
  CHECK(loaded.error().front().path == "chat.guildId");
}

TEST_CASE("a fragment redefining a core key is refused naming the plugin", "[config][schema]") {
  auto plugin = discord_like();
  plugin.schema_json = R"({"chat": {"properties": {"token": {"type": "string"}}}})";
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_error());
  REQUIRE(composed.error().size() == 1);
  CHECK(composed.error().front().path == "chat.token");
  CHECK_THAT(composed.error().front().message, ContainsSubstring("plugin `chat-discord`"));
  CHECK_THAT(composed.error().front().message, ContainsSubstring("errand itself"));
}

TEST_CASE("two plugins defining the same key are refused", "[config][schema]") {
  auto other = discord_like();
  other.plugin = "chat-other";
  const auto composed = compose_schema({discord_like(), other});
  REQUIRE(composed.has_error());
  CHECK_THAT(composed.error().front().message, ContainsSubstring("plugin `chat-other`"));
  CHECK_THAT(composed.error().front().message, ContainsSubstring("the plugin `chat-discord`"));
}

TEST_CASE("a fragment naming an unknown section is refused", "[config][schema]") {
  auto plugin = discord_like();
  plugin.schema_json = R"({"chatt": {"properties": {"x": {"type": "string"}}}})";
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_error());
  CHECK_THAT(composed.error().front().message, ContainsSubstring("`chatt`"));
  CHECK_THAT(composed.error().front().message, ContainsSubstring("chat-discord"));
}

TEST_CASE("a fragment that is not valid JSON is refused", "[config][schema]") {
  auto plugin = discord_like();
  plugin.schema_json = R"({"chat": {"properties": )";
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_error());
  CHECK_THAT(composed.error().front().message, ContainsSubstring("not valid JSON"));
}

TEST_CASE("a plugin may contribute a nested section", "[config][schema]") {
  PluginContribution plugin;
  plugin.plugin = "sandbox-incus";
  plugin.schema_json = R"({"sandbox": {"properties": {"incus": {"type": "object",
      "description": "Incus settings.", "additionalProperties": false,
      "properties": {"project": {"type": "string", "default": "errand",
                                 "description": "The Incus project."}}}}}})";
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_value());
  auto config = minimal_config();
  set(config, "sandbox.incus.projct", "x");
  const auto loaded = load_config_text(boost::json::serialize(config), "/t", *composed, {});
  REQUIRE(loaded.has_error());
  CHECK(loaded.error().front().message ==
        "`sandbox.incus.projct` is not a setting; did you mean `sandbox.incus.project`?");
}

TEST_CASE("no plugins compose to the core schema", "[config][schema]") {
  const auto composed = compose_schema({});
  REQUIRE(composed.has_value());
  CHECK(*composed == core_schema());
}

TEST_CASE("a fragment may restate that its section is an object", "[config][schema]") {
  PluginContribution plugin;
  plugin.plugin = "broker";
  plugin.schema_json = R"({"broker": {"type": "object", "properties": {
      "caFile": {"type": "string", "format": "absolute-path", "description": "A CA file."}}}})";
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_value());
  auto config = minimal_config();
  set(config, "broker.caFile", "/etc/ssl/private-ca.pem");
  CHECK(load_config_text(boost::json::serialize(config), "/t", *composed, {}).has_value());
  CHECK(load_core(config).has_error());
}

TEST_CASE("a fragment may not change what its section is", "[config][schema]") {
  PluginContribution plugin;
  plugin.plugin = "broker";
  plugin.schema_json = R"({"broker": {"additionalProperties": true}})";
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_error());
  CHECK_THAT(composed.error().front().message,
             ContainsSubstring("may contribute only properties and required"));
}

TEST_CASE("a plugin key's pattern is enforced", "[config][schema]") {
  auto plugin = discord_like();
  plugin.schema_json = R"({"chat": {"properties": {"guildId": {"type": "string",
      "pattern": "^[0-9]{1,20}$", "description": "A guild."}}}})";
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_value());
  auto config = minimal_config();
  set(config, "chat.guildId", "my-guild");
  const auto loaded = load_config_text(boost::json::serialize(config), "/t", *composed, {});
  REQUIRE(loaded.has_error());
  CHECK(loaded.error().front().path == "chat.guildId");
  CHECK_THAT(loaded.error().front().message, ContainsSubstring("must match \"^[0-9]{1,20}$\""));
  set(config, "chat.guildId", "123456789");
  CHECK(load_config_text(boost::json::serialize(config), "/t", *composed, {}).has_value());
}
