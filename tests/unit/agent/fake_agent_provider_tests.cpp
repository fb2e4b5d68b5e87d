// The fake agent's directives that leave the process: its provider call (with the stand-in it
// was given, in the provider's header), fetch through the proxy variables, and env.

#include "core/agent/provider_routes.hpp"
#include "tests/fakes/provider/fake_provider.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/agent/acp_harness.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand::agent;
using namespace errand::agent::test;
using errand::fakes::FakeProvider;
using errand::fakes::ScriptedAnswer;
namespace json = boost::json;

TEST_CASE("the fake agent calls its provider with the key from its environment and relays it") {
  errand::test::TempDir dir;
  FakeProvider provider;
  provider.push(ScriptedAnswer::answer("streamed from the provider"));
  provider.push(ScriptedAnswer::answer("the openai way"));
  AgentUnderTest agent(dir.path(), {.environment = {{"ANTHROPIC_BASE_URL", provider.http_url()},
                                                    {"ANTHROPIC_API_KEY", "errand-session-standin"},
                                                    {"OAI_URL", provider.http_url() + "/v1"},
                                                    {"OAI_KEY", "errand-session-other"}}});
  const auto session = agent.open_session();
  REQUIRE(agent.loop().run(agent.client().set_config_option(session, "model", "fake-model-small")));
  const auto turn = agent.prompt(session,
                                 "provider hello there\n"
                                 "via OAI_URL OAI_KEY openai\n"
                                 "provider and again");
  REQUIRE(turn);
  CHECK(agent.message_text() == "streamed from the providerthe openai way");
  std::vector<std::uint64_t> used;
  for (const auto& u : agent.updates)
    if (const auto* usage = std::get_if<UsageUpdate>(&u.update)) used.push_back(usage->used);
  CHECK(used == std::vector<std::uint64_t>{19, 19});

  const auto requests = provider.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].target == "/v1/messages");
  CHECK(requests[0].header("x-api-key") == "errand-session-standin");
  CHECK(requests[0].header("authorization").empty());
  const auto first = json::parse(requests[0].body).as_object();
  CHECK(first.at("model") == "fake-model-small");
  CHECK(first.at("stream") == true);
  CHECK(first.at("messages").as_array()[0].as_object().at("content") == "hello there");
  CHECK(requests[1].target == "/v1/chat/completions");
  CHECK(requests[1].header("authorization") == "Bearer errand-session-other");
}

TEST_CASE("the fake agent reports a provider refusal instead of failing the turn") {
  errand::test::TempDir dir;
  FakeProvider provider;
  provider.push(ScriptedAnswer::rate_limited(3));
  AgentUnderTest agent(dir.path(), {.environment = {{"ANTHROPIC_BASE_URL", provider.http_url()},
                                                    {"ANTHROPIC_API_KEY", "k"}}});
  const auto session = agent.open_session();
  REQUIRE(agent.prompt(session, "provider anything\nprovider-less line"));
  CHECK(agent.message_text().find("provider call failed: the provider answered HTTP/1.1 429") == 0);
}

TEST_CASE("the fake agent reports a stream cut or reset before its end as a failed call") {
  errand::test::TempDir dir;
  FakeProvider provider;
  provider.push(ScriptedAnswer::cut_off("the first half"));
  provider.push(ScriptedAnswer::reset_midway("the other first half"));
  AgentUnderTest agent(dir.path(), {.environment = {{"ANTHROPIC_BASE_URL", provider.http_url()},
                                                    {"ANTHROPIC_API_KEY", "k"}}});
  const auto session = agent.open_session();
  REQUIRE(agent.prompt(session, "provider cut\nprovider reset"));
  const auto text = agent.message_text();
  const std::string failed = "provider call failed: the answer stream ended before the provider";
  const auto first = text.find(failed);
  REQUIRE(first != std::string::npos);
  CHECK(text.find(failed, first + 1) != std::string::npos);
}

TEST_CASE("fetch goes through the proxy variables with the credential as Basic auth") {
  errand::test::TempDir dir;
  // The fake provider stands in for the proxy: it records what reaches it and answers 404.
  FakeProvider proxy;
  const std::string credential = "errand-session-" + std::string(64, 'f');
  EnvironmentList env;
  for (auto [name, value] : proxy_environment(credential)) {
    const auto at = value.find("127.0.0.1:3128");
    if (at != std::string::npos)
      value.replace(at, 14, "127.0.0.1:" + std::to_string(proxy.http_port()));
    env.emplace_back(name, value);
  }
  AgentUnderTest agent(dir.path(), {.environment = env});
  const auto session = agent.open_session();
  REQUIRE(agent.prompt(session,
                       "fetch http://example.invalid/some/path\n"
                       "fetch https://example.invalid/\n"
                       "fetch http://127.0.0.1:" +
                           std::to_string(proxy.http_port()) + "/direct"));
  const auto text = agent.message_text();
  CHECK(text.find("fetch http://example.invalid/some/path: via proxy 127.0.0.1:") !=
        std::string::npos);
  CHECK(text.find("HTTP/1.1 404 Not Found") != std::string::npos);
  CHECK(text.find("fetch https://example.invalid/: via proxy") != std::string::npos);
  CHECK(text.find("CONNECT HTTP/1.1 404") != std::string::npos);
  CHECK(text.find("/direct: direct;") != std::string::npos);

  const auto requests = proxy.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].method == "GET");
  CHECK(requests[0].target == "http://example.invalid/some/path");
  const std::string basic =
      "Basic ZXJyYW5kOmVycmFuZC1zZXNzaW9uLWZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZm"
      "ZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmY=";
  CHECK(requests[0].header("proxy-authorization") == basic);
  CHECK(requests[1].method == "CONNECT");
  CHECK(requests[1].target == "example.invalid:443");
  CHECK(requests[1].header("proxy-authorization") == basic);
  CHECK(requests[2].target == "/direct");
  CHECK(requests[2].header("proxy-authorization").empty());
}

TEST_CASE("env lists the agent's whole environment") {
  errand::test::TempDir dir;
  AgentUnderTest agent(dir.path(), {.environment = {{"VISIBLE_MARKER", "marker-value"}}});
  const auto session = agent.open_session();
  REQUIRE(agent.prompt(session, "env"));
  const auto text = agent.message_text();
  CHECK(text.find("VISIBLE_MARKER=marker-value\n") != std::string::npos);
  CHECK(text.find("PATH=/usr/bin:/bin\n") != std::string::npos);
}
