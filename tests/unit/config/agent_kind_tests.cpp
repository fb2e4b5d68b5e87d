// agent.kind left out is the bundled agent that speaks agent.provider's dialect, with the
// command and variables that agent reads; kage and any other ACP agent are still chosen by
// name, and a provider that says nothing of its dialect leaves nothing to choose by.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <errand/sdk/config_values.hpp>

#include "tests/support/result_printing.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;
using errand::sdk::find_setting;

namespace {

std::string text_at(const boost::json::object& config, std::string_view dotted) {
  const auto* found = find_setting(config, dotted);
  INFO("setting " << dotted);
  REQUIRE(found != nullptr);
  REQUIRE(found->is_string());
  return std::string(found->as_string());
}

// minimal_config with its one provider of this kind, written without credentialName.
boost::json::object with_provider_of_kind(std::string_view kind) {
  auto config = minimal_config();
  auto& provider = config["agent"].as_object()["providers"].as_object()["anthropic"].as_object();
  provider["kind"] = kind;
  provider.erase("credentialName");
  return config;
}

}  // namespace

TEST_CASE("an anthropic provider gets claude-agent-acp with the variables it reads",
          "[config][defaults][agent-kind]") {
  const auto effective = effective_of(with_provider_of_kind("anthropic"));
  CHECK(text_at(effective, "agent.kind") == "claude-agent-acp");
  CHECK(*find_setting(effective, "agent.command") == boost::json::array{"claude-agent-acp"});
  CHECK(text_at(effective, "agent.baseUrlVariable") == "ANTHROPIC_BASE_URL");
  CHECK(text_at(effective, "agent.providers.anthropic.credentialName") == "ANTHROPIC_API_KEY");
}

TEST_CASE("an openai provider gets codex-acp, which reads no base-URL variable",
          "[config][defaults][agent-kind]") {
  auto config = with_provider_of_kind("openai");
  set(config, "agent.providers.anthropic.baseUrl", "https://api.openai.com/v1");
  const auto effective = effective_of(config);
  CHECK(text_at(effective, "agent.kind") == "codex-acp");
  CHECK(*find_setting(effective, "agent.command") == boost::json::array{"codex-acp"});
  CHECK(find_setting(effective, "agent.baseUrlVariable") == nullptr);
  CHECK(text_at(effective, "agent.providers.anthropic.credentialName") == "OPENAI_API_KEY");
}

TEST_CASE("what the configuration writes beats the bundled agent's defaults",
          "[config][defaults][agent-kind]") {
  auto config = minimal_config();
  set(config, "agent.providers.anthropic.credentialName", "MY_KEY");
  set(config, "agent.baseUrlVariable", "MY_BASE");
  set(config, "agent.command", boost::json::array{"/opt/claude/bin/claude-agent-acp", "--x"});
  const auto effective = effective_of(config);
  CHECK(text_at(effective, "agent.kind") == "claude-agent-acp");
  CHECK(*find_setting(effective, "agent.command") ==
        boost::json::array{"/opt/claude/bin/claude-agent-acp", "--x"});
  CHECK(text_at(effective, "agent.baseUrlVariable") == "MY_BASE");
  CHECK(text_at(effective, "agent.providers.anthropic.credentialName") == "MY_KEY");
}

TEST_CASE("kage and acp are still chosen by name, with nothing of a bundled agent's",
          "[config][defaults][agent-kind]") {
  auto kage = with_provider_of_kind("anthropic");
  set(kage, "agent.kind", "kage");
  set(kage, "agent.providers.anthropic.credentialName", "ANTHROPIC_API_KEY");
  const auto kage_effective = effective_of(kage);
  CHECK(*find_setting(kage_effective, "agent.command") == boost::json::array{"kage", "rpc"});
  CHECK(find_setting(kage_effective, "agent.baseUrlVariable") == nullptr);

  auto acp = with_provider_of_kind("anthropic");
  set(acp, "agent.kind", "acp");
  set(acp, "agent.command", boost::json::array{"my-agent"});
  set(acp, "agent.credentialVariable", "MY_KEY");
  const auto acp_effective = effective_of(acp);
  CHECK(find_setting(acp_effective, "agent.baseUrlVariable") == nullptr);
  CHECK(find_setting(acp_effective, "agent.providers.anthropic.credentialName") == nullptr);
}

TEST_CASE("a provider that names no kind leaves agent.kind to be written",
          "[config][validation][agent-kind]") {
  auto config = minimal_config();
  config["agent"].as_object()["providers"].as_object()["anthropic"].as_object().erase("kind");
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.kind");
  CHECK_THAT(problem.message, ContainsSubstring("agent.providers.anthropic.kind"));
  CHECK_THAT(problem.message, ContainsSubstring("claude-agent-acp (anthropic)"));
  CHECK_THAT(problem.message, ContainsSubstring("codex-acp (openai)"));
  CHECK_THAT(problem.message, ContainsSubstring("\"kage\""));

  set(config, "agent.kind", "kage");
  CHECK(load_core(config).has_value());
}

TEST_CASE("a bundled agent is refused for a provider of the other dialect",
          "[config][validation][agent-kind]") {
  auto config = with_provider_of_kind("openai");
  set(config, "agent.kind", "claude-agent-acp");
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.kind");
  CHECK_THAT(problem.message, ContainsSubstring("speaks only the anthropic API"));
  CHECK_THAT(problem.message, ContainsSubstring("use \"codex-acp\""));
}

TEST_CASE("agent.kind takes only the kinds errand has glue for",
          "[config][validation][agent-kind]") {
  auto config = minimal_config();
  set(config, "agent.kind", "claude");
  const auto problems = problems_of(config);
  const auto problem = problem_at(problems, "agent.kind");
  CHECK_THAT(problem.message, ContainsSubstring("claude-agent-acp"));
  CHECK_THAT(problem.message, ContainsSubstring("codex-acp"));
}
