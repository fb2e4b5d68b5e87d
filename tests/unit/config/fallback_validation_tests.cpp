// agent.fallback: each entry is "provider/model" on another defined provider, because errand
// knows usage windows per provider; everything else is refused with why and what to write.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/config/fallback_checks.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

// minimal_config with a second provider, "backup", to fall back on.
boost::json::object with_backup(boost::json::array fallback) {
  auto config = minimal_config();
  set(config, "agent.providers.backup",
      boost::json::object{{"credentialName", "BACKUP_API_KEY"}, {"credential", "sk-backup-0123"}});
  set(config, "agent.fallback", std::move(fallback));
  return config;
}

}  // namespace

TEST_CASE("a fallback on another defined provider is accepted, in order",
          "[config][fallback][key:agent.fallback]") {
  auto config = with_backup({"backup/model-b", "spare/model-s:high"});
  set(config, "agent.providers.spare",
      boost::json::object{{"credentialName", "SPARE_API_KEY"}, {"credential", "sk-spare-0123"}});
  const auto loaded = load_core(config);
  INFO((loaded.has_error() ? format_problems(loaded.error()) : std::string()));
  REQUIRE(loaded.has_value());
  const auto entries = fallback_entries(loaded->effective);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].provider == "backup");
  CHECK(entries[0].model == "model-b");
  CHECK(entries[1].text() == "spare/model-s:high");
}

TEST_CASE("absent, agent.fallback is no fallback at all",
          "[config][fallback][key:agent.fallback]") {
  const auto loaded = load_core(minimal_config());
  REQUIRE(loaded.has_value());
  CHECK(fallback_entries(loaded->effective).empty());
}

TEST_CASE("a bare model name in agent.fallback is refused: it names no provider",
          "[config][fallback][key:agent.fallback]") {
  const auto problem = only_problem(with_backup({"claude-sonnet"}));
  CHECK(problem.path == "agent.fallback[0]");
  CHECK_THAT(problem.message, ContainsSubstring("\"claude-sonnet\", which names no provider"));
  CHECK_THAT(problem.message, ContainsSubstring("per provider, not per model"));
  CHECK_THAT(problem.message, ContainsSubstring("\"<provider>/<model>\" (defined: \"backup\")"));
}

TEST_CASE("a model of agent.provider itself is refused as a fallback",
          "[config][fallback][key:agent.fallback]") {
  const auto problem = only_problem(with_backup({"backup/model-b", "anthropic/claude-haiku"}));
  CHECK(problem.path == "agent.fallback[1]");
  CHECK_THAT(problem.message, ContainsSubstring("a model of `agent.provider` itself"));
  CHECK_THAT(problem.message, ContainsSubstring("spent whenever the starting one is"));
}

TEST_CASE("with no other provider, the refusal says to define one",
          "[config][fallback][key:agent.fallback]") {
  auto config = minimal_config();
  set(config, "agent.fallback", boost::json::array{"anthropic/claude-haiku"});
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.fallback[0]");
  CHECK_THAT(problem.message, ContainsSubstring("define another provider under `agent.providers`"));
}

TEST_CASE("a fallback on an undefined provider is refused, with the closest name",
          "[config][fallback][key:agent.fallback]") {
  const auto near = only_problem(with_backup({"bakup/model-b"}));
  CHECK(near.path == "agent.fallback[0]");
  CHECK_THAT(near.message, ContainsSubstring("\"bakup\", which is not defined under "));
  CHECK_THAT(near.message, ContainsSubstring("did you mean \"backup/model-b\"?"));
  const auto far = only_problem(with_backup({"elsewhere/model-e"}));
  CHECK_THAT(far.message, ContainsSubstring("define it there, or name a model of another"));
}

TEST_CASE("a repeated entry, or a second entry on the same provider, is refused",
          "[config][fallback][key:agent.fallback]") {
  const auto repeat = only_problem(with_backup({"backup/model-b", "backup/model-b"}));
  CHECK(repeat.path == "agent.fallback[1]");
  CHECK_THAT(repeat.message, ContainsSubstring("like `agent.fallback[0]`"));
  CHECK_THAT(repeat.message, ContainsSubstring("keep one entry per provider"));
  const auto sibling = only_problem(with_backup({"backup/model-b", "backup/model-c"}));
  CHECK(sibling.path == "agent.fallback[1]");
}

TEST_CASE("a fallback entry is split at its first slash",
          "[config][fallback][key:agent.fallback]") {
  const auto routed = split_provider_model("router/meta/llama-3");
  REQUIRE(routed);
  CHECK(routed->provider == "router");
  CHECK(routed->model == "meta/llama-3");
  CHECK_FALSE(split_provider_model("model"));
  CHECK_FALSE(split_provider_model("/model"));
  CHECK_FALSE(split_provider_model("provider/"));
}
