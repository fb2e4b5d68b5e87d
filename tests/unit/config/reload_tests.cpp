// What a reload reaches: the one table that decides it, the configuration a reload applies (the
// new file with the fields it does not reach held at their start-up values), and what is said
// about a held change, once per edit.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <errand/sdk/config_values.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "core/config/reload.hpp"
#include "core/config/schema.hpp"
#include "tests/support/test_paths.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

namespace json = boost::json;

bool names(const std::vector<Problem>& problems, std::string_view path) {
  for (const auto& problem : problems)
    if (problem.path == path) return true;
  return false;
}

const json::value* at(const json::object& config, std::string_view dotted) {
  return errand::sdk::find_setting(config, dotted);
}

// The configuration a reload of `file` applies after a start with minimal_config().
json::object applied_after(const json::object& file) {
  return effective_of(hold_unreached(minimal_config(), file));
}

}  // namespace

TEST_CASE("a chat token change is held, and its value is never said", "[config][reload]") {
  const auto before = effective_of(minimal_config());
  auto changed = minimal_config();
  set(changed, "chat.token", "another-token-987654321");
  const auto said = held_changes(before, before, effective_of(changed));
  INFO(format_problems(said.held));
  REQUIRE(names(said.held, "chat.token"));
  for (const auto& problem : said.held) {
    CHECK_THAT(problem.message, ContainsSubstring("until a restart"));
    CHECK_THAT(problem.message, !ContainsSubstring("another-token-987654321"));
    CHECK_THAT(problem.message, !ContainsSubstring("bot-token-0123456789"));
  }
  CHECK(at(applied_after(changed), "chat.token")->as_string() == "bot-token-0123456789");
}

TEST_CASE("limits, logging and models are reached by a reload", "[config][reload]") {
  const auto before = effective_of(minimal_config());
  auto changed = minimal_config();
  set(changed, "limits.maxLiveSessions", 8);
  set(changed, "logging.level", "debug");
  set(changed, "agent.providers.anthropic.models", json::array{"claude-new"});
  set(changed, "sandbox.memory", "2g");
  set(changed, "sandbox.policyExtra.read", json::array{"/opt/shared"});
  CHECK(held_changes(before, before, effective_of(changed)).held.empty());
  const auto applied = applied_after(changed);
  CHECK(at(applied, "limits.maxLiveSessions")->as_int64() == 8);
  CHECK(at(applied, "logging.level")->as_string() == "debug");
  CHECK(*at(applied, "agent.providers.anthropic.models") == json::array{"claude-new"});
  CHECK(at(applied, "sandbox.memory")->as_string() == "2g");
  CHECK(*at(applied, "sandbox.policyExtra.read") == json::array{"/opt/shared"});
}

TEST_CASE("who may use the bot keeps its start-up value after a reload", "[config][reload]") {
  auto changed = minimal_config();
  set(changed, "chat.allowedUserIds", json::array{"42", "77"});
  set(changed, "chat.operatorUserIds", json::array{"77"});
  set(changed, "chat.startOnMention", true);
  const auto applied = applied_after(changed);
  CHECK(*at(applied, "chat.allowedUserIds") == json::array{"42"});
  CHECK(*at(applied, "chat.operatorUserIds") == json::array{});
  CHECK(at(applied, "chat.startOnMention")->as_bool() == false);
}

TEST_CASE("the network, the egress mode and the broker keep their start-up values",
          "[config][reload]") {
  auto changed = minimal_config();
  set(changed, "sandbox.backend", "podman");
  set(changed, "sandbox.network", "open");
  set(changed, "sandbox.egress.mode", "open");
  set(changed, "sandbox.egress.allow", json::array{"github.com"});
  set(changed, "sandbox.egressPorts", json::array{80, 443});
  set(changed, "sandbox.hideHostAddress", true);
  const auto said = held_changes(effective_of(minimal_config()), effective_of(minimal_config()),
                                 effective_of(changed));
  INFO(format_problems(said.held));
  for (const auto* path :
       {"sandbox.backend", "sandbox.network", "sandbox.egress.mode", "sandbox.egress.allow",
        "sandbox.egressPorts", "sandbox.hideHostAddress"})
    CHECK(names(said.held, path));
  const auto applied = applied_after(changed);
  const auto started = effective_of(minimal_config());
  for (const auto* path : {"sandbox.backend", "sandbox.network", "sandbox.egress",
                           "sandbox.egressPorts", "sandbox.hideHostAddress"})
    CHECK(*at(applied, path) == *at(started, path));
}

TEST_CASE("provider routes keep their start-up values; an added provider is not routed",
          "[config][reload]") {
  auto started = minimal_config();
  set(started, "agent.providers.spare",
      json::object{{"credential", "sk-spare-0123456789"}, {"kind", "openai"}});
  auto changed = started;
  set(changed, "agent.providers.anthropic.baseUrl", "https://elsewhere.example/v1");
  set(changed, "agent.providers.anthropic.maxConcurrentRequests", 2);
  set(changed, "agent.providers.anthropic.models", json::array{"claude-new"});
  set(changed, "agent.providers.openai", json::object{{"credential", "sk-0123456789"}});
  changed["agent"].as_object()["providers"].as_object().erase("spare");
  const auto said =
      held_changes(effective_of(started), effective_of(started), effective_of(changed));
  INFO(format_problems(said.held));
  CHECK(names(said.held, "agent.providers.anthropic.baseUrl"));
  CHECK(names(said.held, "agent.providers.anthropic.maxConcurrentRequests"));
  CHECK(names(said.held, "agent.providers.openai"));
  CHECK(names(said.held, "agent.providers.spare"));
  CHECK_FALSE(names(said.held, "agent.providers.anthropic.models"));

  const auto applied = effective_of(hold_unreached(started, changed));
  CHECK(at(applied, "agent.providers.anthropic.baseUrl") == nullptr);
  CHECK(at(applied, "agent.providers.anthropic.maxConcurrentRequests")->as_int64() == 4);
  CHECK(*at(applied, "agent.providers.anthropic.models") == json::array{"claude-new"});
  CHECK(at(applied, "agent.providers.openai") == nullptr);
  CHECK(at(applied, "agent.providers.spare.credential")->as_string() == "sk-spare-0123456789");
}

TEST_CASE("a held change is said once per edit, and again when it is undone", "[config][reload]") {
  const auto started = effective_of(minimal_config());
  auto edited = minimal_config();
  set(edited, "chat.allowedUserIds", json::array{"42", "77"});
  const auto first = effective_of(edited);
  CHECK(names(held_changes(started, started, first).held, "chat.allowedUserIds"));

  // A later edit elsewhere does not repeat it.
  set(edited, "limits.maxLiveSessions", 3);
  const auto second = effective_of(edited);
  const auto again = held_changes(started, first, second);
  CHECK(again.held.empty());
  CHECK(again.in_step.empty());

  // Editing it once more is a new edit; putting it back is in step.
  set(edited, "chat.allowedUserIds", json::array{"42", "78"});
  const auto third = effective_of(edited);
  CHECK(names(held_changes(started, second, third).held, "chat.allowedUserIds"));
  const auto undone = held_changes(started, third, started);
  CHECK(undone.held.empty());
  CHECK(undone.in_step == std::vector<std::string>{"chat.allowedUserIds"});
}

TEST_CASE("a held field that conflicts with the new file makes the applied one invalid",
          "[config][reload]") {
  auto changed = minimal_config();
  set(changed, "stateDir", "/var/lib/errand-two");
  set(changed, "projectRoot", "/var/lib/errand/projects");
  REQUIRE(load_core(changed).has_value());
  const auto held = load_core(hold_unreached(minimal_config(), changed));
  REQUIRE(held.has_error());
  CHECK(problem_at(held.error(), "projectRoot").message.find("inside `stateDir`") !=
        std::string::npos);
}

TEST_CASE("every row of the reach table names a field of the schema", "[config][reload]") {
  const auto schema = core_schema();
  for (const auto& row : reload_reach_table()) {
    INFO(row.field);
    const json::object* node = &schema;
    std::string_view rest = row.field;
    while (!rest.empty()) {
      const auto dot = rest.find('.');
      const std::string segment(rest.substr(0, dot));
      rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
      const json::value* next = segment == "*"
                                    ? node->if_contains("additionalProperties")
                                    : node->at("properties").as_object().if_contains(segment);
      REQUIRE(next != nullptr);
      node = &next->as_object();
    }
    CHECK(!row.why.empty());
  }
}

TEST_CASE("docs/configuration.md's reload table is the reach table", "[config][reload][docs]") {
  std::ifstream in(errand::test::source_path("docs/configuration.md"));
  REQUIRE(in);
  std::vector<std::pair<std::string, bool>> documented;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("#")) in_section = line == "### What a reload reaches";
    // Rows read "| `field` | yes/no | why |".
    if (!in_section || !line.starts_with("| `")) continue;
    const auto end = line.find('`', 3);
    const auto cells = line.substr(end + 1);
    const bool yes = cells.find("| yes") != std::string::npos;
    const bool no = cells.find("| no") != std::string::npos;
    if (yes == no) continue;
    documented.emplace_back(line.substr(3, end - 3), yes);
  }
  std::vector<std::pair<std::string, bool>> table;
  for (const auto& row : reload_reach_table()) table.emplace_back(row.field, row.reached);
  CHECK(documented == table);
}

TEST_CASE("each row of the reach table decides what a reload applies", "[config][reload]") {
  // One representative change per row; a row added to the table without one fails here.
  const std::map<std::string_view, std::pair<std::string_view, json::value>> changes{
      {"chat", {"chat.startOnMention", true}},
      {"plugins", {"plugins.path", json::array{"/opt/errand-plugins"}}},
      {"web", {"web", json::object{{"port", 8788}}}},
      {"stateDir", {"stateDir", "/var/lib/errand-two"}},
      {"projectRoot", {"projectRoot", "/srv/errand/elsewhere"}},
      {"logging", {"logging.level", "debug"}},
      {"agent", {"agent.model", "claude-other"}},
      {"agent.providers.*", {"agent.providers.anthropic.credentialName", "OTHER_API_KEY"}},
      {"agent.providers.*.models", {"agent.providers.anthropic.models", json::array{"m-1"}}},
      {"agent.delegate", {"agent.delegate", json::object{{"model", "fake-flash"}}}},
      {"sandbox", {"sandbox.pids", 64}},
      {"sandbox.backend", {"sandbox.backend", "podman"}},
      {"sandbox.network", {"sandbox.network", "open"}},
      {"sandbox.egress", {"sandbox.egress.mode", "open"}},
      {"sandbox.egressPorts", {"sandbox.egressPorts", json::array{443, 8443}}},
      {"sandbox.hideHostAddress", {"sandbox.hideHostAddress", true}},
      {"limits", {"limits.maxLiveSessions", 8}},
      {"timeouts", {"timeouts.idleMs", 60000}},
      {"output", {"output.postDiffs", false}},
      {"github",
       {"github",
        json::object{{"token", "ghp_0123456789"}, {"userName", "b"}, {"userEmail", "b@x"}}}},
  };
  const auto started = effective_of(minimal_config());
  for (const auto& row : reload_reach_table()) {
    INFO(row.field);
    if (row.field == "broker") {
      // The broker's keys come from its plugin, which the core schema alone does not hold.
      CHECK_FALSE(reached_by_reload({"broker", "caFile"}));
      continue;
    }
    const auto change = changes.find(row.field);
    REQUIRE(change != changes.end());
    const auto& [key, value] = change->second;
    auto file = minimal_config();
    set(file, key, value);
    const auto file_effective = effective_of(file);
    const auto applied = applied_after(file);
    const auto said = held_changes(started, started, file_effective);
    if (row.reached) {
      CHECK(*at(applied, key) == *at(file_effective, key));
      CHECK(said.held.empty());
    } else {
      const auto* was = at(started, key);
      const auto* now = at(applied, key);
      CHECK((was == nullptr ? now == nullptr : now != nullptr && *now == *was));
      CHECK(names(said.held, key));
    }
  }
}
