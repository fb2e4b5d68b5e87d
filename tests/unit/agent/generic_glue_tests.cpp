// A generic ACP agent's launch, the provider routes and the proxy variables.

#include "core/agent/generic_acp_glue.hpp"
#include "core/agent/provider_routes.hpp"
#include "tests/support/result_printing.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand::agent;
namespace json = boost::json;

namespace {

json::object acp_config_with(const char* agent_json) {
  return {{"agent", json::parse(agent_json).as_object()},
          {"sandbox", json::object{{"egress", json::object{{"mode", "proxy"}}}}}};
}

errand::sdk::BrokerSession broker_for(const char* provider, const char* variable) {
  errand::sdk::BrokerSession broker;
  broker.proxy_credential = "errand-session-" + std::string(64, '1');
  broker.stand_ins[provider] = {variable, "errand-session-" + std::string(64, '2')};
  return broker;
}

AgentLaunch prepare_acp(const json::object& config, const errand::sdk::BrokerSession& broker) {
  GenericAcpGlue glue;
  LaunchInputs inputs{&config, provider_routes(config, &broker), "", "", false, ""};
  auto launch = glue.prepare(inputs);
  REQUIRE(launch);
  return *launch;
}

}  // namespace

TEST_CASE("a generic agent gets its provider's route and stand-in in the variables it names",
          "[key:agent.baseUrlVariable]"
          "[key:agent.credentialVariable]"
          "[key:agent.provider]"
          "[key:agent.model]") {
  const auto config = acp_config_with(R"({
    "kind": "acp", "command": ["my-agent", "--acp"], "provider": "anthropic",
    "baseUrlVariable": "MY_BASE_URL", "credentialVariable": "MY_KEY", "model": "big:low",
    "providers": {"anthropic": {"credential": "sk-real", "credentialName": "ANTHROPIC_API_KEY"},
                  "other": {"credential": "sk-other", "credentialName": "OTHER_KEY"}}})");
  const auto broker = broker_for("anthropic", "ANTHROPIC_API_KEY");
  const auto launch = prepare_acp(config, broker);
  CHECK(launch.argv == std::vector<std::string>{"my-agent", "--acp"});
  using Env = std::vector<std::pair<std::string, std::string>>;
  CHECK(launch.env == Env{{"MY_BASE_URL", "http://127.0.0.1:3128/provider/anthropic"},
                          {"MY_KEY", broker.stand_ins.at("anthropic").value}});
  CHECK(launch.config_options == Env{{"model", "big"}, {"thinking", "low"}});
  CHECK(launch.files.empty());
}

TEST_CASE("without credentialVariable the provider's credentialName carries the stand-in",
          "[key:agent.providers.<name>.credentialName]") {
  const auto config = acp_config_with(R"({
    "kind": "acp", "command": ["my-agent"], "provider": "anthropic",
    "providers": {"anthropic": {"credential": "sk-real", "credentialName": "ANTHROPIC_API_KEY"}}})");
  const auto broker = broker_for("anthropic", "ANTHROPIC_API_KEY");
  const auto launch = prepare_acp(config, broker);
  REQUIRE(launch.env.size() == 1);
  CHECK(launch.env[0].first == "ANTHROPIC_API_KEY");
  CHECK(launch.env[0].second == broker.stand_ins.at("anthropic").value);
  CHECK(launch.config_options.empty());
}

TEST_CASE("a generic agent with no way to learn its key is refused with the keys to set") {
  const auto config = acp_config_with(R"({
    "kind": "acp", "provider": "anthropic",
    "providers": {"anthropic": {"credential": "sk-real"}}})");
  GenericAcpGlue glue;
  errand::sdk::ConfigProblems problems;
  glue.check(config, problems);
  REQUIRE(problems.all().size() == 2);
  CHECK(problems.all()[0].path == "agent.command");
  CHECK(problems.all()[1].path == "agent.credentialVariable");
  CHECK(problems.all()[1].message.find("credentialName on agent.providers.anthropic") !=
        std::string::npos);
  LaunchInputs inputs{&config, provider_routes(config, nullptr), "", "", false, ""};
  CHECK_FALSE(glue.prepare(inputs));
}

TEST_CASE("a provider outside the broker is reached directly with its own key",
          "[key:agent.providers.<name>.broker]"
          "[key:agent.providers.<name>.baseUrl]") {
  const auto config = acp_config_with(R"({
    "kind": "acp", "command": ["a"], "provider": "local",
    "providers": {"local": {"credential": "local-key", "credentialName": "LOCAL_KEY",
                            "baseUrl": "http://127.0.0.1:8080/v1", "broker": false},
                  "cloud": {"credential": "cloud-key", "credentialName": "CLOUD_KEY"}}})");
  const auto broker = broker_for("cloud", "CLOUD_KEY");
  const auto routes = provider_routes(config, &broker);
  REQUIRE(routes.size() == 2);
  CHECK(routes[0].name == "cloud");
  CHECK(routes[0].brokered);
  CHECK(routes[0].credential == broker.stand_ins.at("cloud").value);
  CHECK(routes[1].name == "local");
  CHECK_FALSE(routes[1].brokered);
  CHECK(routes[1].base_url == "http://127.0.0.1:8080/v1");
  CHECK(routes[1].credential == "local-key");
}

TEST_CASE("the proxy variables carry the credential as userinfo and spare the relay") {
  const auto env = proxy_environment("errand-session-abc");
  using Env = std::vector<std::pair<std::string, std::string>>;
  const std::string url = "http://errand:errand-session-abc@127.0.0.1:3128";
  CHECK(env == Env{{"HTTP_PROXY", url},
                   {"HTTPS_PROXY", url},
                   {"http_proxy", url},
                   {"https_proxy", url},
                   {"NO_PROXY", "127.0.0.1,localhost"},
                   {"no_proxy", "127.0.0.1,localhost"}});
  CHECK(proxy_environment("a b@c")[0].second == "http://errand:a%20b%40c@127.0.0.1:3128");
}
