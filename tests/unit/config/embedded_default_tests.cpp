// The built-in default errand run starts on without a configuration file: what it is made of for
// each provider key, what it refuses, that it passes validation like a file, that what is shown
// of it hides the key, and that saving it never replaces a file.

#include "core/config/embedded_default.hpp"
#include "core/config/secrets.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/config/config_test_support.hpp"

#include <sys/stat.h>

#include <algorithm>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <errand/sdk/config_values.hpp>

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;
using errand::sdk::find_setting;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kKey = "sk-ant-embedded-0123456789";

EmbeddedDefaultInputs inputs_with(std::map<std::string, std::string> variables,
                                  std::optional<std::string> home = "/home/newcomer") {
  return EmbeddedDefaultInputs{std::move(variables), std::move(home)};
}

EmbeddedDefault chosen_for(const EmbeddedDefaultInputs& inputs) {
  auto chosen = embedded_default(inputs);
  INFO((chosen ? std::string() : chosen.error().message));
  REQUIRE(chosen.has_value());
  return std::move(*chosen);
}

std::string string_at(const json::object& config, std::string_view dotted) {
  const auto* found = find_setting(config, dotted);
  INFO("setting " << dotted);
  REQUIRE(found != nullptr);
  REQUIRE(found->is_string());
  return std::string(found->as_string());
}

std::string refusal_for(const EmbeddedDefaultInputs& inputs) {
  const auto chosen = embedded_default(inputs);
  REQUIRE(chosen.has_error());
  CHECK(chosen.error().kind == errand::sdk::Error::Kind::refused);
  return chosen.error().message;
}

}  // namespace

TEST_CASE("ANTHROPIC_API_KEY makes a web-only bailey default with claude-agent-acp",
          "[config][embedded-default]") {
  const auto chosen = chosen_for(inputs_with({{"ANTHROPIC_API_KEY", kKey}}));
  CHECK(chosen.key_variable == "ANTHROPIC_API_KEY");
  CHECK(chosen.agent_kind == "claude-agent-acp");
  CHECK(chosen.notes.empty());
  // It is a configuration like a file's: validated by the same schema, defaults filled in.
  const auto effective = effective_of(chosen.written);
  CHECK(string_at(effective, "agent.kind") == "claude-agent-acp");
  CHECK(string_at(effective, "agent.provider") == "anthropic");
  CHECK(string_at(effective, "agent.providers.anthropic.credential") == kKey);
  CHECK(string_at(effective, "agent.providers.anthropic.credentialName") == "ANTHROPIC_API_KEY");
  CHECK(string_at(effective, "sandbox.backend") == "bailey");
  CHECK(string_at(effective, "sandbox.egress.mode") == "proxy");
  CHECK(string_at(effective, "projectRoot") == "/home/newcomer/.local/share/errand/projects");
  CHECK(string_at(effective, "stateDir") == "/home/newcomer/.local/state/errand");
  CHECK(string_at(effective, "web.host") == "127.0.0.1");
  CHECK(find_setting(effective, "web.port")->to_number<int>() == 8787);
  CHECK(find_setting(effective, "chat") == nullptr);
  // The key is a configured credential, so it is among the secrets scrubbed from output.
  const auto secrets = collect_secrets(effective, core_schema());
  CHECK(std::find(secrets.begin(), secrets.end(), std::string(kKey)) != secrets.end());
}

TEST_CASE("OPENAI_API_KEY makes the default with codex-acp and an openai provider",
          "[config][embedded-default]") {
  const auto chosen = chosen_for(inputs_with({{"OPENAI_API_KEY", kKey}}));
  CHECK(chosen.agent_kind == "codex-acp");
  const auto effective = effective_of(chosen.written);
  CHECK(string_at(effective, "agent.provider") == "openai");
  CHECK(string_at(effective, "agent.providers.openai.kind") == "openai");
  CHECK(string_at(effective, "agent.providers.openai.credentialName") == "OPENAI_API_KEY");
}

TEST_CASE("with both keys the Anthropic one is used and a note names the other",
          "[config][embedded-default]") {
  const auto chosen = chosen_for(
      inputs_with({{"ANTHROPIC_API_KEY", kKey}, {"OPENAI_API_KEY", "sk-openai-12345678"}}));
  CHECK(chosen.agent_kind == "claude-agent-acp");
  REQUIRE(chosen.notes.size() == 1);
  CHECK_THAT(chosen.notes[0], ContainsSubstring("OPENAI_API_KEY is set too and not used"));
}

TEST_CASE("an empty key is no key", "[config][embedded-default]") {
  const auto chosen =
      chosen_for(inputs_with({{"ANTHROPIC_API_KEY", ""}, {"OPENAI_API_KEY", kKey}}));
  CHECK(chosen.agent_kind == "codex-acp");
}

TEST_CASE("the XDG data and state directories are used when absolute, ignored when relative",
          "[config][embedded-default]") {
  const auto absolute = chosen_for(inputs_with(
      {{"ANTHROPIC_API_KEY", kKey}, {"XDG_DATA_HOME", "/data"}, {"XDG_STATE_HOME", "/state"}}));
  CHECK(string_at(absolute.written, "projectRoot") == "/data/errand/projects");
  CHECK(string_at(absolute.written, "stateDir") == "/state/errand");
  const auto relative = chosen_for(inputs_with(
      {{"ANTHROPIC_API_KEY", kKey}, {"XDG_DATA_HOME", "data"}, {"XDG_STATE_HOME", "state"}}));
  CHECK(string_at(relative.written, "projectRoot") ==
        "/home/newcomer/.local/share/errand/projects");
  CHECK(string_at(relative.written, "stateDir") == "/home/newcomer/.local/state/errand");
  const auto message = refusal_for(inputs_with({{"ANTHROPIC_API_KEY", kKey}}, std::nullopt));
  CHECK_THAT(message, ContainsSubstring("HOME"));
}

TEST_CASE(
    "a base URL in the environment is the provider's, and an internal one is allowed to "
    "the broker for that address alone",
    "[config][embedded-default]") {
  const auto local = chosen_for(
      inputs_with({{"ANTHROPIC_API_KEY", kKey}, {"ANTHROPIC_BASE_URL", "http://127.0.0.1:4000"}}));
  CHECK(string_at(local.written, "agent.providers.anthropic.baseUrl") == "http://127.0.0.1:4000");
  CHECK(*find_setting(local.written, "sandbox.egress.allowInternal") == json::array{"127.0.0.1"});
  CHECK(*find_setting(local.written, "sandbox.egress.allow") == json::array{"*"});
  effective_of(local.written);  // plain http to an allowed internal address is accepted

  const auto lan = chosen_for(
      inputs_with({{"OPENAI_API_KEY", kKey}, {"OPENAI_BASE_URL", "http://[fd00::5]:8080/v1"}}));
  CHECK(*find_setting(lan.written, "sandbox.egress.allowInternal") == json::array{"fd00::5"});

  const auto gateway = chosen_for(inputs_with(
      {{"ANTHROPIC_API_KEY", kKey}, {"ANTHROPIC_BASE_URL", "https://gateway.example.com"}}));
  CHECK(find_setting(gateway.written, "sandbox.egress") == nullptr);
  CHECK(string_at(gateway.written, "agent.providers.anthropic.baseUrl") ==
        "https://gateway.example.com");
}

TEST_CASE("no key refuses naming both variables; another provider's key is named as unspoken",
          "[config][embedded-default]") {
  const auto none = refusal_for(inputs_with({}));
  CHECK_THAT(none, ContainsSubstring("ANTHROPIC_API_KEY (claude-agent-acp)"));
  CHECK_THAT(none, ContainsSubstring("OPENAI_API_KEY (codex-acp)"));
  CHECK_THAT(none, !ContainsSubstring("no agent errand bundles"));

  const auto other = refusal_for(inputs_with({{"GEMINI_API_KEY", "g-0123456789"}}));
  CHECK_THAT(other, ContainsSubstring("GEMINI_API_KEY is set, but no agent errand bundles speaks"));
  CHECK_THAT(other, ContainsSubstring("claude-agent-acp (anthropic), codex-acp (openai)"));
  CHECK_THAT(other, !ContainsSubstring("g-0123456789"));
}

TEST_CASE("what is shown of the default names the key's variable, never the key",
          "[config][embedded-default]") {
  const auto chosen = chosen_for(inputs_with({{"ANTHROPIC_API_KEY", kKey}}));
  const auto shown = describe_embedded_default(chosen);
  CHECK_THAT(shown, ContainsSubstring("\"credential\": \"<the value of ANTHROPIC_API_KEY>\""));
  CHECK_THAT(shown, ContainsSubstring("\"projectRoot\""));
  CHECK(shown.find(kKey) == std::string::npos);
}

TEST_CASE("saving writes the default with its key for this account alone, and never over a file",
          "[config][embedded-default]") {
  const errand::test::TempDir dir;
  const auto path = dir / "config" / "errand" / "config.json";
  const auto chosen = chosen_for(inputs_with({{"ANTHROPIC_API_KEY", kKey}}));
  REQUIRE(save_embedded_default(chosen, path));
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat(path.parent_path().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  // Read back, it is the same configuration, and it loads.
  const auto loaded = load_config_file(path, core_schema(), {});
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  CHECK(loaded->written == chosen.written);

  const auto other = chosen_for(inputs_with({{"OPENAI_API_KEY", kKey}}));
  const auto again = save_embedded_default(other, path);
  REQUIRE(again.has_error());
  CHECK_THAT(again.error().message, ContainsSubstring("already exists and is kept"));
  const auto kept = load_config_file(path, core_schema(), {});
  REQUIRE(kept.has_value());
  CHECK(kept->written == chosen.written);
}
