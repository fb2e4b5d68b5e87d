#include "core/config/plugin_view.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/config/schema.hpp"

using namespace errand::config;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;

namespace {

constexpr const char* kSchema = R"({
  "chat": {"properties": {"apiBase": {"type": "string"}, "guildId": {"type": "string"}}},
  "sandbox": {"properties": {"incus": {"type": "object", "properties": {}}}}
})";

json::object effective() {
  return json::parse(R"({
    "chat": {"token": "tok-0123456789", "channelId": "42", "apiBase": "https://api.test",
             "guildId": "7", "allowedUserIds": ["1"]},
    "agent": {"model": "m-large", "providers": {"p": {"credential": "KEY"}}},
    "sandbox": {"backend": "incus", "incus": {"project": "errand"}, "image": "img"}
  })")
      .as_object();
}

}  // namespace

TEST_CASE("a plugin's own keys are the properties its schema fragment adds",
          "[config][plugin-view]") {
  auto keys = plugin_keys(kSchema, nullptr);
  REQUIRE(keys.has_value());
  CHECK(keys->own == std::vector<std::string>{"chat.apiBase", "chat.guildId", "sandbox.incus"});
  CHECK(keys->reads.empty());
}

TEST_CASE("config_reads adds the keys of other sections a plugin reads", "[config][plugin-view]") {
  auto keys = plugin_keys(nullptr, R"(["chat.token", "agent.model", "agent.delegate-x_2"])");
  REQUIRE(keys.has_value());
  CHECK(keys->own.empty());
  CHECK(keys->reads == std::vector<std::string>{"chat.token", "agent.model", "agent.delegate-x_2"});
  CHECK(keys->all() == keys->reads);
}

TEST_CASE("a config_reads that is not a list of dotted keys is refused with what is wrong",
          "[config][plugin-view]") {
  const auto refusal = [](const char* reads) {
    auto keys = plugin_keys(kSchema, reads);
    REQUIRE_FALSE(keys.has_value());
    CHECK_THAT(keys.error().message,
               ContainsSubstring("it must be a JSON array of dotted configuration keys"));
    return keys.error().message;
  };
  CHECK_THAT(refusal(R"(["agent.model")"), ContainsSubstring("is not valid JSON"));
  CHECK_THAT(refusal(R"("agent.model")"), ContainsSubstring("is \"agent.model\", not an array"));
  CHECK_THAT(refusal(R"([7])"), ContainsSubstring("holds 7, which is not a dotted key"));
  CHECK_THAT(refusal(R"(["chat token"])"), ContainsSubstring("holds \"chat token\""));
  CHECK_THAT(refusal(R"(["agent..model"])"), ContainsSubstring("holds \"agent..model\""));
  CHECK_THAT(refusal(R"([".agent"])"), ContainsSubstring("holds \".agent\""));
  CHECK_THAT(refusal(R"(["agent."])"), ContainsSubstring("holds \"agent.\""));
  CHECK_THAT(refusal(R"([""])"), ContainsSubstring("holds \"\""));
}

TEST_CASE("a plugin is handed its keys at their paths and nothing else", "[config][plugin-view]") {
  const auto view =
      plugin_view(effective(), {"chat.apiBase", "chat.channelId", "sandbox.incus", "agent.model"});
  CHECK(view == json::parse(R"({
    "chat": {"apiBase": "https://api.test", "channelId": "42"},
    "sandbox": {"incus": {"project": "errand"}},
    "agent": {"model": "m-large"}
  })"));
  // The secret it did not declare, and the sections it has no key in, are not there.
  CHECK(view.at("chat").as_object().if_contains("token") == nullptr);
  CHECK(view.if_contains("web") == nullptr);
}

TEST_CASE("a declared key the configuration does not hold is absent from the view",
          "[config][plugin-view]") {
  const auto view = plugin_view(effective(), {"agent.delegate", "broker.caFile"});
  CHECK(view.empty());
}

TEST_CASE("a whole section declared is handed whole", "[config][plugin-view]") {
  const auto view = plugin_view(effective(), {"agent.providers", "agent"});
  CHECK(view.at("agent") == effective().at("agent"));
}

TEST_CASE("composing the schema refuses a config_reads key no schema defines",
          "[config][plugin-view]") {
  PluginContribution plugin;
  plugin.plugin = "broker";
  plugin.reads = {"agent.model", "agent.modle"};
  const auto composed = compose_schema({plugin});
  REQUIRE(composed.has_error());
  REQUIRE(composed.error().size() == 1);
  CHECK(composed.error().front().path == "agent.modle");
  CHECK_THAT(composed.error().front().message,
             ContainsSubstring("plugin `broker`: its config_reads names `agent.modle`, which no "
                               "schema of errand defines"));
}

TEST_CASE("a plugin may read a key another plugin adds", "[config][plugin-view]") {
  PluginContribution adds;
  adds.plugin = "sandbox-podman";
  adds.schema_json = R"({"sandbox": {"properties": {"image": {"type": "string"}}}})";
  PluginContribution reads;
  reads.plugin = "reader";
  reads.reads = {"sandbox.image", "chat.token", "agent.providers"};
  // The reader comes first: the check waits until every fragment is merged.
  CHECK(compose_schema({reads, adds}).has_value());
}
