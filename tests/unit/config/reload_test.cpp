#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/config/reload.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

boost::json::object effective_of(const boost::json::object& config) {
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  return loaded->effective;
}

bool names(const std::vector<Problem>& problems, std::string_view path) {
  for (const auto& problem : problems)
    if (problem.path == path) return true;
  return false;
}

}  // namespace

TEST_CASE("a chat token change is not reached by a reload", "[config][reload]") {
  const auto before = effective_of(minimal_config());
  auto changed = minimal_config();
  set(changed, "chat.token", "another-token-987654321");
  const auto unreachable = unreachable_by_reload(before, effective_of(changed));
  INFO(format_problems(unreachable));
  REQUIRE(names(unreachable, "chat.token"));
  for (const auto& problem : unreachable) {
    CHECK_THAT(problem.message, !ContainsSubstring("another-token-987654321"));
    CHECK_THAT(problem.message, !ContainsSubstring("bot-token-0123456789"));
  }
}

TEST_CASE("a limits change is reached by a reload", "[config][reload]") {
  const auto before = effective_of(minimal_config());
  auto changed = minimal_config();
  set(changed, "limits.maxLiveSessions", 8);
  set(changed, "logging.level", "debug");
  const auto unreachable = unreachable_by_reload(before, effective_of(changed));
  INFO(format_problems(unreachable));
  REQUIRE(unreachable.size() == 1);
  CHECK(unreachable.front().path.empty());
  CHECK_THAT(unreachable.front().message, ContainsSubstring("sessions already running"));
}

TEST_CASE("an unchanged configuration has nothing unreachable", "[config][reload]") {
  const auto effective = effective_of(minimal_config());
  CHECK(unreachable_by_reload(effective, effective).empty());
}

TEST_CASE("backend, broker and provider route changes are not reached", "[config][reload]") {
  const auto before = effective_of(minimal_config());
  auto changed = minimal_config();
  set(changed, "sandbox.backend", "podman");
  set(changed, "sandbox.egress.allow", boost::json::array{"github.com"});
  set(changed, "sandbox.egressPorts", boost::json::array{80, 443});
  set(changed, "agent.providers.anthropic.capabilities", "*");
  set(changed, "agent.providers.anthropic.maxConcurrentRequests", 2);
  set(changed, "agent.providers.openai", boost::json::object{{"credential", "sk-0123456789"}});
  set(changed, "chat.allowedUserIds", boost::json::array{"*"});
  const auto unreachable = unreachable_by_reload(before, effective_of(changed));
  INFO(format_problems(unreachable));
  CHECK(names(unreachable, "sandbox.backend"));
  CHECK(names(unreachable, "sandbox.egress.allow"));
  CHECK(names(unreachable, "sandbox.egressPorts"));
  CHECK(names(unreachable, "agent.providers.anthropic.capabilities"));
  CHECK(names(unreachable, "agent.providers.openai"));
  CHECK(names(unreachable, "chat.allowedUserIds"));
  CHECK_FALSE(names(unreachable, "agent.providers.anthropic.maxConcurrentRequests"));
}
