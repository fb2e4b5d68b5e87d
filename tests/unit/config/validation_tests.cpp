#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <errand/sdk/config_values.hpp>

#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Equals;

TEST_CASE("the minimal configuration loads", "[config][validation]") {
  const auto loaded = load_core(minimal_config());
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  CHECK(loaded.has_value());
}

TEST_CASE("three problems are reported at once, and only those", "[config][validation]") {
  auto config = minimal_config();
  set(config, "limits.maxLiveSesions", 3);
  set(config, "projectRoot", "srv/x");
  set(config, "sandbox.pids", "many");
  const auto problems = problems_of(config);
  INFO(format_problems(problems));
  REQUIRE(problems.size() == 3);
  CHECK_THAT(problem_at(problems, "projectRoot").message,
             ContainsSubstring("`projectRoot` must be an absolute path; \"srv/x\" is relative"));
  CHECK_THAT(problem_at(problems, "sandbox.pids").message,
             ContainsSubstring("`sandbox.pids` must be a whole number, not a string"));
  CHECK_THAT(problem_at(problems, "limits.maxLiveSesions").message,
             ContainsSubstring("did you mean `limits.maxLiveSessions`?"));
}

TEST_CASE("a misspelt key is named with the key it most likely means", "[config][validation]") {
  auto config = minimal_config();
  auto& chat = config["chat"].as_object();
  chat["chanelId"] = chat["channelId"];
  chat.erase("channelId");
  // The misspelling stands for the missing required key, so that is not reported twice.
  const auto problem = only_problem(config);
  CHECK(problem.path == "chat.chanelId");
  CHECK_THAT(problem.message,
             Equals("`chat.chanelId` is not a setting; did you mean `chat.channelId`?"));
}

TEST_CASE("a key in the wrong case is named with the right one", "[config][validation]") {
  auto config = minimal_config();
  set(config, "limits.MaxLiveSessions", 3);
  const auto problem = only_problem(config);
  CHECK(problem.path == "limits.MaxLiveSessions");
  CHECK_THAT(problem.message, ContainsSubstring("did you mean `limits.maxLiveSessions`?"));
}

TEST_CASE("an unknown key nothing resembles is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "chat.colourScheme", "dark");
  const auto problem = only_problem(config);
  CHECK(problem.path == "chat.colourScheme");
  CHECK_THAT(problem.message, ContainsSubstring("is not a setting"));
  CHECK_THAT(problem.message, !ContainsSubstring("did you mean"));
}

TEST_CASE("an unknown top-level key is refused", "[config][validation]") {
  auto config = minimal_config();
  config["sandox"] = boost::json::object{};
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandox");
  CHECK_THAT(problem.message, ContainsSubstring("did you mean `sandbox`?"));
}

TEST_CASE("a credential written where it used to live says where it lives now",
          "[config][validation]") {
  auto config = minimal_config();
  set(config, "agent.credential", "sk-ant-0123456789");
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.credential");
  CHECK_THAT(problem.message, ContainsSubstring("agent.providers.<name>.credential"));
}

TEST_CASE("a wrong type is named with what was expected and found", "[config][validation]") {
  auto config = minimal_config();
  set(config, "limits.maxLiveSessions", "4");
  const auto problem = only_problem(config);
  CHECK(problem.path == "limits.maxLiveSessions");
  CHECK_THAT(problem.message,
             Equals("`limits.maxLiveSessions` must be a whole number, not a string"));
}

TEST_CASE("a fraction where a whole number belongs is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "timeouts.idleMs", 1.5);
  const auto problem = only_problem(config);
  CHECK(problem.path == "timeouts.idleMs");
  CHECK_THAT(problem.message, ContainsSubstring("must be a whole number, not 1.5"));
}

TEST_CASE("a number below its minimum is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "limits.maxConcurrentTurns", 0);
  const auto problem = only_problem(config);
  CHECK(problem.path == "limits.maxConcurrentTurns");
  CHECK_THAT(problem.message, ContainsSubstring("must be at least 1, not 0"));
}

TEST_CASE("a number above its maximum is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "sandbox.egressPorts", boost::json::array{443, 70000});
  const auto problem = only_problem(config);
  CHECK(problem.path == "sandbox.egressPorts[1]");
  CHECK_THAT(problem.message, ContainsSubstring("must be at most 65535, not 70000"));
}

TEST_CASE("a value outside an enumeration lists the allowed ones", "[config][validation]") {
  auto config = minimal_config();
  set(config, "logging.level", "eror");
  const auto problem = only_problem(config);
  CHECK(problem.path == "logging.level");
  CHECK_THAT(problem.message, ContainsSubstring("must be one of \"trace\", \"debug\""));
  CHECK_THAT(problem.message, ContainsSubstring("did you mean \"error\"?"));
}

TEST_CASE("a relative projectRoot is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "projectRoot", "srv/x");
  const auto problem = only_problem(config);
  CHECK(problem.path == "projectRoot");
  CHECK_THAT(problem.message,
             ContainsSubstring("`projectRoot` must be an absolute path; \"srv/x\" is relative"));
}

TEST_CASE("a stateDir inside projectRoot is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "projectRoot", "/srv/errand");
  set(config, "stateDir", "/srv/errand/state/");
  const auto problem = only_problem(config);
  CHECK(problem.path == "stateDir");
  CHECK_THAT(problem.message, ContainsSubstring("is inside `projectRoot`"));
}

TEST_CASE("a projectRoot inside stateDir is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "projectRoot", "/var/lib/errand/projects");
  const auto problem = only_problem(config);
  CHECK(problem.path == "projectRoot");
  CHECK_THAT(problem.message, ContainsSubstring("is inside `stateDir`"));
}

TEST_CASE("the same directory for projectRoot and stateDir is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "projectRoot", "/var/lib/errand/");
  const auto problem = only_problem(config);
  CHECK(problem.path == "stateDir");
  CHECK_THAT(problem.message, ContainsSubstring("the same directory"));
}

TEST_CASE("sibling directories sharing a name prefix do not nest", "[config][validation]") {
  auto config = minimal_config();
  set(config, "projectRoot", "/srv/errand");
  set(config, "stateDir", "/srv/errand-state");
  CHECK(load_core(config).has_value());
}

TEST_CASE("a chat token shorter than 8 bytes is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "chat.token", "abc1234");
  const auto problem = only_problem(config);
  CHECK(problem.path == "chat.token");
  CHECK_THAT(problem.message, ContainsSubstring("at least 8 bytes long, not 7"));
  CHECK_THAT(problem.message, !ContainsSubstring("abc1234"));
}

TEST_CASE("a missing required key is named", "[config][validation]") {
  auto config = minimal_config();
  erase(config, "chat.channelId");
  const auto problem = only_problem(config);
  CHECK(problem.path == "chat.channelId");
  CHECK_THAT(problem.message, ContainsSubstring("is required but missing"));
}

TEST_CASE("a missing required section is one problem, not one per key", "[config][validation]") {
  auto config = minimal_config();
  config.erase("agent");
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent");
  CHECK_THAT(problem.message, ContainsSubstring("is required but missing"));
}

TEST_CASE("an empty allowedUserIds is refused with what to write instead", "[config][validation]") {
  auto config = minimal_config();
  set(config, "chat.allowedUserIds", boost::json::array{});
  const auto problem = only_problem(config);
  CHECK(problem.path == "chat.allowedUserIds");
  CHECK_THAT(problem.message, ContainsSubstring("must not be an empty list"));
  CHECK_THAT(problem.message, ContainsSubstring("[\"*\"]"));
}

TEST_CASE("a list that names an entry twice is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "chat.allowedUserIds", boost::json::array{"42", "42"});
  const auto problem = only_problem(config);
  CHECK(problem.path == "chat.allowedUserIds");
  CHECK_THAT(problem.message, ContainsSubstring("lists \"42\" more than once"));
}

TEST_CASE("an acp agent without a command is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "agent.kind", "acp");
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.command");
  CHECK_THAT(problem.message, ContainsSubstring("required when `agent.kind` is \"acp\""));
}

TEST_CASE("an alias containing a colon is refused", "[config][validation]") {
  auto config = minimal_config();
  set(config, "agent.aliases", boost::json::object{{"fast:high", "claude-haiku"}});
  const auto problem = only_problem(config);
  CHECK(problem.path == "agent.aliases.fast:high");
  CHECK_THAT(problem.message, ContainsSubstring("thinking level"));
}

TEST_CASE("a plugin's validator sees the effective configuration and its problems are added",
          "[config][validation]") {
  PluginContribution plugin;
  plugin.plugin = "chat-test";
  bool saw_default = false;
  plugin.validate = [&](const boost::json::object& effective, errand::sdk::ConfigProblems& out) {
    saw_default = effective.at("chat").at("transport") == "discord";
    out.add("chat.channelId", "the test transport refuses this channel");
  };
  auto config = minimal_config();
  set(config, "projectRoot", "/var/lib/errand");  // a cross-key problem does not stop plugins
  const auto loaded = load_core(config, {plugin});
  REQUIRE(loaded.has_error());
  REQUIRE(loaded.error().size() == 2);
  CHECK(loaded.error()[1].path == "chat.channelId");
  CHECK(saw_default);
}

TEST_CASE("plugin validators do not run over a configuration of the wrong shape",
          "[config][validation]") {
  PluginContribution plugin;
  plugin.plugin = "chat-test";
  bool ran = false;
  plugin.validate = [&](const boost::json::object&, errand::sdk::ConfigProblems&) { ran = true; };
  auto config = minimal_config();
  set(config, "limits.maxLiveSessions", "four");
  const auto loaded = load_core(config, {plugin});
  REQUIRE(loaded.has_error());
  CHECK_FALSE(ran);
}

TEST_CASE("a plugin validator that throws is a problem naming the plugin", "[config][validation]") {
  PluginContribution plugin;
  plugin.plugin = "chat-broken";
  plugin.validate = [](const boost::json::object&, errand::sdk::ConfigProblems&) {
    throw std::runtime_error("boom");
  };
  const auto loaded = load_core(minimal_config(), {plugin});
  REQUIRE(loaded.has_error());
  CHECK_THAT(loaded.error().front().message, ContainsSubstring("chat-broken"));
}

TEST_CASE("problems are formatted as one list", "[config][validation]") {
  const std::string text = format_problems({{"chat.chanelId", "first"}, {"", "second"}});
  CHECK(text == "configuration refused (2 problems):\n  - chat.chanelId: first\n  - second\n");
  CHECK(format_problems({{"a", "b"}}) == "configuration refused (1 problem):\n  - a: b\n");
}

// Found by fuzz_config_text: both passed validation, then failed a reader after errand had
// accepted the file (settings_from threw on the first, the sandbox settings refused the second).
TEST_CASE("a whole number past int64 and a number that is NaN are refused",
          "[config][validation]") {
  for (const auto& [key, written] :
       {std::pair{"timeouts.idleMs", "1e300"},
        std::pair{"limits.maxQueueLength", "9223372036854775808"},
        std::pair{"sandbox.cpus", "0e40000"}, std::pair{"sandbox.cpus", "1e400"}}) {
    CAPTURE(key, written);
    auto config = minimal_config();
    set(config, key, "placeholder-for-the-number");
    auto text = boost::json::serialize(config);
    const std::string placeholder = "\"placeholder-for-the-number\"";
    text.replace(text.find(placeholder), placeholder.size(), written);
    static const auto schema = core_schema();
    const auto loaded = load_config_text(text, "/test/config.json", schema, {});
    REQUIRE(loaded.has_error());
    REQUIRE(loaded.error().size() == 1);
    CHECK(loaded.error()[0].path == key);
  }
  auto config = minimal_config();
  set(config, "timeouts.idleMs", 1.8e6);
  CHECK(load_core(config).has_value());
}

TEST_CASE("a shutdown block names who may stop the daemon, or is refused with the fix",
          "[config][validation][key:shutdown.allowedUserIds]") {
  auto config = minimal_config();
  set(config, "shutdown", boost::json::parse(R"({"allowedUserIds": ["42"]})"));
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  CHECK(
      errand::sdk::find_setting(loaded->effective, "shutdown.allowedUserIds")->as_array().size() ==
      1);

  for (const auto* written : {R"({"allowedUserIds": []})", R"({"allowedUserIds": "42"})", R"({})",
                              R"({"allowedUserIds": ["42", "42"]})"}) {
    INFO(written);
    set(config, "shutdown", boost::json::parse(written));
    const auto problem = only_problem(config);
    CHECK_THAT(problem.path, ContainsSubstring("shutdown"));
  }
}
