// ACP authenticate: which of the agent's authMethods errand picks, and the conversation with an
// agent (the real fake agent) that requires authentication before it opens a session.

#include "core/agent/auth_method_choice.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/agent/acp_harness.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace errand::agent;
using namespace errand::agent::test;

namespace {

const std::vector<AuthMethod> codex_like_methods{
    {"chatgpt", "Login with ChatGPT", "", {}},
    {"codex-api-key", "Use CODEX_API_KEY", "env_var", {"CODEX_API_KEY"}},
    {"openai-api-key", "Use OPENAI_API_KEY", "env_var", {"OPENAI_API_KEY"}},
};

AgentOptions requiring_authentication(EnvironmentList extra = {}) {
  AgentOptions options;
  options.environment = {{"FAKE_AGENT_AUTH_VARIABLE", "FAKE_PROVIDER_KEY"}};
  for (auto& entry : extra) options.environment.push_back(std::move(entry));
  return options;
}

}  // namespace

TEST_CASE("the env_var method whose variables the session carries is chosen") {
  const auto chosen = choose_auth_method(codex_like_methods, {"PATH", "OPENAI_API_KEY"});
  REQUIRE(chosen);
  CHECK(chosen->id == "openai-api-key");
  CHECK(choose_auth_method(codex_like_methods, {"CODEX_API_KEY", "OPENAI_API_KEY"})->id ==
        "codex-api-key");
}

TEST_CASE("no method is chosen when the session carries none of their variables") {
  CHECK_FALSE(choose_auth_method(codex_like_methods, {"ANTHROPIC_API_KEY"}));
  // A method errand cannot carry out (a browser login) is never chosen, whatever is set.
  CHECK_FALSE(choose_auth_method({codex_like_methods[0]}, {"OPENAI_API_KEY"}));
  // A method reading two variables needs both.
  const std::vector<AuthMethod> pair{{"both", "", "env_var", {"A_KEY", "B_KEY"}}};
  CHECK_FALSE(choose_auth_method(pair, {"A_KEY"}));
  CHECK(choose_auth_method(pair, {"B_KEY", "A_KEY"}));
}

TEST_CASE("the offered methods are described with the variables they read") {
  CHECK(describe_auth_methods(codex_like_methods) ==
        "chatgpt (Login with ChatGPT), codex-api-key (reads CODEX_API_KEY), openai-api-key "
        "(reads OPENAI_API_KEY)");
}

TEST_CASE("initialize's authMethods are read, variables included") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path(), requiring_authentication());
  auto hello = agent.loop().run(agent.client().initialize());
  REQUIRE(hello);
  REQUIRE(hello->auth_methods.size() == 2);
  CHECK(hello->auth_methods[0].id == "fake-login");
  CHECK(hello->auth_methods[0].type.empty());
  CHECK(hello->auth_methods[1].id == "fake-api-key");
  CHECK(hello->auth_methods[1].type == "env_var");
  CHECK(hello->auth_methods[1].variables == std::vector<std::string>{"FAKE_PROVIDER_KEY"});
}

TEST_CASE("an agent that requires authentication opens a session after authenticate") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path(), requiring_authentication({{"FAKE_PROVIDER_KEY", "stand-in"}}));
  auto hello = agent.loop().run(agent.client().initialize());
  REQUIRE(hello);
  const auto method = choose_auth_method(hello->auth_methods, {"FAKE_PROVIDER_KEY"});
  REQUIRE(method);
  auto authenticated = agent.loop().run(agent.client().authenticate(method->id));
  REQUIRE(authenticated);
  auto session = agent.loop().run(agent.client().new_session());
  REQUIRE(session);
  CHECK_FALSE(session->session_id.empty());
  CHECK(agent.log().contains("authenticated with the agent's method fake-api-key"));
}

TEST_CASE("without authenticate the agent's refusal of session/new says what it offered") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path(), requiring_authentication());
  REQUIRE(agent.loop().run(agent.client().initialize()));
  auto session = agent.loop().run(agent.client().new_session());
  REQUIRE_FALSE(session);
  const auto& why = session.error().message;
  CHECK(why.find("with error -32000: Authentication required") != std::string::npos);
  CHECK(why.find("fake-api-key (reads FAKE_PROVIDER_KEY)") != std::string::npos);
  CHECK(why.find("credentialName") != std::string::npos);
}

TEST_CASE("an authenticate the agent refuses carries the agent's words") {
  errand::test::TempDir dir;
  AgentUnderTest agent(
      dir.path(), requiring_authentication({{"FAKE_PROVIDER_KEY", "stand-in"},
                                            {"FAKE_AGENT_AUTH_REFUSAL", "this key is revoked"}}));
  REQUIRE(agent.loop().run(agent.client().initialize()));
  auto authenticated = agent.loop().run(agent.client().authenticate("fake-api-key"));
  REQUIRE_FALSE(authenticated);
  const auto& why = authenticated.error().message;
  CHECK(why.find("refused to authenticate with its method fake-api-key") != std::string::npos);
  CHECK(why.find("this key is revoked") != std::string::npos);
  // Still unauthenticated, so the session stays closed to us.
  CHECK_FALSE(agent.loop().run(agent.client().new_session()));
}
