#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

constexpr std::string_view anthropic = "agent.providers.anthropic";

std::string key(std::string_view name) {
  return std::string(anthropic) + "." + std::string(name);
}

}  // namespace

TEST_CASE("agent.provider must name a defined provider", "[config][providers]") {
  auto config = minimal_config();
  set(config, "agent.provider", "anthropc");
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.provider");
  CHECK_THAT(problem.message, ContainsSubstring("not defined under `agent.providers`"));
  CHECK_THAT(problem.message, ContainsSubstring("did you mean \"anthropic\"?"));
}

TEST_CASE("agent.provider far from every defined one lists them", "[config][providers]") {
  auto config = minimal_config();
  set(config, "agent.provider", "zai");
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.provider");
  CHECK_THAT(problem.message, ContainsSubstring("(anthropic)"));
}

TEST_CASE("near-misses of placement, capabilities and strictCapabilities are refused",
          "[config][providers]") {
  const auto [written, meant] = GENERATE(table<std::string, std::string>({
      {"placment", "placement"},
      {"Placement", "placement"},
      {"place", "placement"},
      {"capabilites", "capabilities"},
      {"capability", "capabilities"},
      {"strictness", "strictCapabilities"},
      {"strictcapabilities", "strictCapabilities"},
  }));
  auto config = minimal_config();
  set(config, key(written), "bearer");
  const auto problem = only_problem(config);
  CHECK(problem.path == key(written));
  CHECK_THAT(problem.message, ContainsSubstring("misspelling of `" + meant + "`"));
}

TEST_CASE("provider keys that only begin alike are the operator's own", "[config][providers]") {
  const auto written = GENERATE(as<std::string>{}, "platform", "capacity", "notes", "region");
  auto config = minimal_config();
  set(config, key(written), "anything");
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  CHECK(loaded.has_value());
}

TEST_CASE("an empty capabilities list is refused", "[config][providers]") {
  auto config = minimal_config();
  set(config, key("capabilities"), boost::json::array{});
  const auto problem = only_problem(config);
  CHECK(problem.path == key("capabilities"));
  CHECK_THAT(problem.message, ContainsSubstring("must not be an empty list"));
  CHECK_THAT(problem.message, ContainsSubstring("Leave capabilities out"));
}

TEST_CASE("capabilities of the wrong type name both accepted forms", "[config][providers]") {
  auto config = minimal_config();
  set(config, key("capabilities"), 5);
  const auto problem = only_problem(config);
  CHECK(problem.path == key("capabilities"));
  CHECK_THAT(problem.message, ContainsSubstring("must be \"*\" or a list, not 5"));
}

TEST_CASE("a capability needs an upper-case method and a path from /", "[config][providers]") {
  auto config = minimal_config();
  set(config, key("capabilities"),
      boost::json::parse(R"([{"method": "post", "path": "v1/messages"}])"));
  const auto problems = problems_of(config);
  INFO(format_problems(problems));
  REQUIRE(problems.size() == 2);
  CHECK_THAT(problem_at(problems, key("capabilities[0].method")).message,
             ContainsSubstring("did you mean \"POST\"?"));
  CHECK_THAT(problem_at(problems, key("capabilities[0].path")).message,
             ContainsSubstring("starting with /"));
}

TEST_CASE("capabilities may be \"*\" or a list of calls", "[config][providers]") {
  auto config = minimal_config();
  set(config, key("capabilities"), "*");
  set(config, key("strictCapabilities"), true);
  CHECK(load_core(config).has_value());
  set(config, key("capabilities"),
      boost::json::parse(R"([{"method": "POST", "path": "/v1/messages"}])"));
  CHECK(load_core(config).has_value());
}

TEST_CASE("strictCapabilities without capabilities is refused", "[config][providers]") {
  auto config = minimal_config();
  set(config, key("strictCapabilities"), true);
  const auto problem = only_problem(config);
  CHECK(problem.path == key("strictCapabilities"));
  CHECK_THAT(problem.message, ContainsSubstring("no `capabilities` list"));
}

TEST_CASE("a provider without a credential is refused", "[config][providers]") {
  auto config = minimal_config();
  erase(config, key("credential"));
  const auto problem = only_problem(config);
  CHECK(problem.path == key("credential"));
  CHECK_THAT(problem.message, ContainsSubstring("is required but missing"));
}

TEST_CASE("a credentialName that is not a variable name is refused", "[config][providers]") {
  auto config = minimal_config();
  set(config, key("credentialName"), "ANTHROPIC-API-KEY");
  const auto problem = only_problem(config);
  CHECK(problem.path == key("credentialName"));
  CHECK_THAT(problem.message, ContainsSubstring("must be an environment variable name"));
}

TEST_CASE("a baseUrl that is not an http(s) URL is refused", "[config][providers]") {
  auto config = minimal_config();
  set(config, key("baseUrl"), "api.anthropic.com/v1");
  const auto problem = only_problem(config);
  CHECK(problem.path == key("baseUrl"));
  CHECK_THAT(problem.message, ContainsSubstring("must be an http or https URL"));
}

TEST_CASE("an unknown placement is refused", "[config][providers]") {
  auto config = minimal_config();
  set(config, key("placement"), "header");
  const auto problem = only_problem(config);
  CHECK(problem.path == key("placement"));
  CHECK_THAT(problem.message, ContainsSubstring("\"bearer\", \"x-api-key\""));
}

TEST_CASE("a provider name that cannot be part of a route is refused", "[config][providers]") {
  auto config = minimal_config();
  set(config, "agent.providers.my provider", boost::json::object{{"credential", "sk-0123456789"}});
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.providers.my provider");
  CHECK_THAT(problem.message, ContainsSubstring("the name of `agent.providers.my provider`"));
  CHECK_THAT(problem.message, ContainsSubstring("/provider/<name>"));
}
