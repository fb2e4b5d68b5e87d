#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <errand/sdk/config_values.hpp>

#include "core/config/schema.hpp"
#include "core/config/secrets.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using errand::sdk::find_setting;

namespace {

boost::json::object effective_with_every_secret() {
  auto config = minimal_config();
  set(config, "agent.providers.local",
      boost::json::object{{"credential", "short"}, {"baseUrl", "http://127.0.0.1:8080"}});
  set(config, "agent.providers.openai", boost::json::object{{"credential", "sk-openai-abcdefgh"}});
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  return loaded->effective;
}

}  // namespace

TEST_CASE("secrets of 8 bytes or more are collected", "[config][secrets]") {
  auto secrets = collect_secrets(effective_with_every_secret(), core_schema());
  // In the order the configuration holds them, which is no promise; compared as a set.
  std::sort(secrets.begin(), secrets.end());
  CHECK(secrets == std::vector<std::string>{"bot-token-0123456789", "sk-ant-0123456789",
                                            "sk-openai-abcdefgh"});
}

TEST_CASE("a secret named twice is collected once", "[config][secrets]") {
  auto effective = effective_with_every_secret();
  effective["agent"].as_object()["providers"].as_object()["openai"].as_object()["credential"] =
      "sk-ant-0123456789";
  const auto secrets = collect_secrets(effective, core_schema());
  CHECK(std::count(secrets.begin(), secrets.end(), "sk-ant-0123456789") == 1);
}

TEST_CASE("every secret field is blanked for logging, short ones included", "[config][secrets]") {
  const auto effective = effective_with_every_secret();
  const auto blanked = blank_secrets(effective, core_schema());
  CHECK(*find_setting(blanked, "chat.token") == "[redacted]");
  CHECK(*find_setting(blanked, "agent.providers.anthropic.credential") == "[redacted]");
  CHECK(*find_setting(blanked, "agent.providers.local.credential") == "[redacted]");
  CHECK(*find_setting(blanked, "agent.providers.openai.credential") == "[redacted]");
  CHECK(*find_setting(blanked, "chat.channelId") == "1001");
  CHECK(*find_setting(blanked, "agent.providers.anthropic.credentialName") == "ANTHROPIC_API_KEY");
  CHECK(*find_setting(effective, "chat.token") == "bot-token-0123456789");
  const std::string logged = boost::json::serialize(blanked);
  for (const auto& secret : collect_secrets(effective, core_schema()))
    CHECK(logged.find(secret) == std::string::npos);
  CHECK(logged.find("\"short\"") == std::string::npos);
}

TEST_CASE("a key a plugin marks secret is collected and blanked like the core's",
          "[config][secrets]") {
  auto schema = core_schema();
  schema["properties"].as_object()["chat"].as_object()["properties"].as_object()["signingKey"] =
      boost::json::object{{"type", "string"}, {"x-errand-secret", true}};
  auto effective = effective_with_every_secret();
  effective["chat"].as_object()["signingKey"] = "plugin-signing-key-42";

  const auto secrets = collect_secrets(effective, schema);
  CHECK(std::count(secrets.begin(), secrets.end(), "plugin-signing-key-42") == 1);
  CHECK(std::count(secrets.begin(), secrets.end(), "bot-token-0123456789") == 1);
  const auto blanked = blank_secrets(effective, schema);
  CHECK(*find_setting(blanked, "chat.signingKey") == "[redacted]");
  CHECK(*find_setting(blanked, "agent.providers.openai.credential") == "[redacted]");
  // Without the plugin's fragment nothing says the key is secret.
  const auto core_only = collect_secrets(effective, core_schema());
  CHECK(std::count(core_only.begin(), core_only.end(), "plugin-signing-key-42") == 0);
}
