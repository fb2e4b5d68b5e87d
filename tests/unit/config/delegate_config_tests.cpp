// agent.delegate at validation: accepted with a broker to make the call, refused where there is
// none to make it.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <errand/sdk/config_values.hpp>

#include "core/config/reload.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("agent.delegate is taken with its defaults filled in",
          "[config][key:agent.delegate.perTurn]"
          "[key:agent.delegate.deadlineMs]") {
  auto config = minimal_config();
  set(config, "agent.delegate", boost::json::parse(R"({"model": "fake-flash"})"));
  const auto loaded = load_core(config);
  REQUIRE(loaded.has_value());
  const auto* per_turn = errand::sdk::find_setting(loaded->effective, "agent.delegate.perTurn");
  const auto* deadline = errand::sdk::find_setting(loaded->effective, "agent.delegate.deadlineMs");
  REQUIRE(per_turn != nullptr);
  REQUIRE(deadline != nullptr);
  CHECK(per_turn->to_number<std::int64_t>() == 8);
  CHECK(deadline->to_number<std::int64_t>() == 60000);
}

TEST_CASE("agent.delegate without a model, or with a zero allowance, is refused",
          "[config][key:agent.delegate.model]") {
  auto config = minimal_config();
  set(config, "agent.delegate", boost::json::parse(R"({"perTurn": 3})"));
  CHECK(only_problem(config).path == "agent.delegate.model");
  set(config, "agent.delegate", boost::json::parse(R"({"model": "m", "perTurn": 0})"));
  CHECK(only_problem(config).path == "agent.delegate.perTurn");
}

TEST_CASE("agent.delegate is refused when no broker could make the call", "[config]") {
  SECTION("sessions under open egress have no broker") {
    auto config = minimal_config();
    set(config, "agent.delegate", boost::json::parse(R"({"model": "fake-flash"})"));
    set(config, "sandbox.egress.mode", boost::json::value("open"));
    const auto problem = only_problem(config);
    CHECK(problem.path == "agent.delegate");
    CHECK_THAT(problem.message, ContainsSubstring("needs the egress broker"));
    CHECK_THAT(problem.message, ContainsSubstring("sandbox.egress.mode is \"open\""));
  }
  SECTION("a provider the broker holds no key for") {
    auto config = minimal_config();
    set(config, "agent.delegate", boost::json::parse(R"({"model": "fake-flash"})"));
    set(config, "agent.providers.anthropic.broker", boost::json::value(false));
    const auto problems = problems_of(config);
    const auto problem = problem_at(problems, "agent.delegate");
    CHECK_THAT(problem.message, ContainsSubstring("`agent.providers.anthropic.broker` is false"));
  }
}

TEST_CASE("a reload does not add, remove or re-point the delegate the broker was started with",
          "[config][reload][key:agent.delegate.perTurn]") {
  auto startup = minimal_config();
  auto with_delegate = minimal_config();
  set(with_delegate, "agent.delegate",
      boost::json::parse(R"({"model": "fake-flash", "perTurn": 8, "deadlineMs": 60000})"));
  const auto added = held_changes(startup, startup, with_delegate);
  REQUIRE(added.held.size() == 1);
  CHECK(added.held[0].path == "agent.delegate");
  CHECK_THAT(added.held[0].message, ContainsSubstring("until a restart"));

  auto fewer = with_delegate;
  set(fewer, "agent.delegate.perTurn", boost::json::value(2));
  const auto allowance = held_changes(with_delegate, with_delegate, fewer);
  REQUIRE(allowance.held.size() == 1);
  CHECK(allowance.held[0].path == "agent.delegate.perTurn");
}
