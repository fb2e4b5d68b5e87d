// Editing the live configuration: a broken file is refused whole and the daemon keeps serving
// on what it had; a valid edit is applied; a change a reload cannot reach is said so, once; a
// reload the sandbox could not enforce in full is refused.

#include "tests/support/daemon_harness.hpp"
#include "tests/support/poll_until.hpp"

#include <catch2/catch_test_macros.hpp>
#include <csignal>
#include <fstream>
#include <thread>

using namespace errand::test;
using namespace std::chrono_literals;

namespace {

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

// Waits until the daemon's log holds needle `times` times.
bool wait_for_count(const ChildProcess& daemon, const std::string& needle, std::size_t times) {
  return errand::test::poll_until([&] { return occurrences(daemon.err(), needle) >= times; }, 20s,
                                  50ms);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

constexpr std::string_view kReloaded = "configuration reloaded from";

std::unique_ptr<ChildProcess> start_serving(const DaemonHarness& h, const std::string& config) {
  h.write_config(config);
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));
  return daemon;
}

void stop_serving(ChildProcess& daemon) {
  daemon.signal(SIGTERM);
  CHECK(daemon.wait_for(20s) == 0);
}

}  // namespace

TEST_CASE("broken JSON is refused and logged, then a valid change is applied") {
  DaemonHarness h;
  h.write_config(h.config_text());
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));

  h.write_config(R"({ "chat": { "token": )");
  REQUIRE(daemon->wait_for_output("configuration reload refused", 20s));
  CHECK(!daemon->wait_for(200ms).has_value());  // still serving

  auto text = h.config_text();
  text.replace(text.find("\"network\": \"none\""), 17, "\"network\": \"none\", \"pids\": 64");
  h.write_config(text);
  REQUIRE(daemon->wait_for_output("configuration reloaded from", 20s));
  CHECK(!daemon->wait_for(200ms).has_value());

  daemon->signal(SIGTERM);
  CHECK(daemon->wait_for(20s) == 0);
}

TEST_CASE("a reload that changes the chat token says the change waits for a restart") {
  DaemonHarness h;
  h.write_config(h.config_text());
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));
  h.write_config(h.config_text("", "another-chat-token-9876543210"));
  REQUIRE(daemon->wait_for_output("configuration reloaded from", 20s));
  const auto err = daemon->err();
  CHECK(err.find("chat.token") != std::string::npos);
  CHECK(err.find("another-chat-token-9876543210") == std::string::npos);
  daemon->signal(SIGTERM);
  CHECK(daemon->wait_for(20s) == 0);
}

TEST_CASE("a plugin's validator refuses a bad value in its own section") {
  DaemonHarness h;
  h.write_config(h.config_text(R"("fixture": {"gaps": [""]})"));
  const auto r = h.run({"config", "check"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("sandbox.fixture.gaps") != std::string::npos);
}

TEST_CASE("a reload that leaves a guarantee unenforced is refused under requireFullEnforcement") {
  DaemonHarness h;
  auto daemon = start_serving(h, h.config_text());

  h.write_config(h.config_text(R"("fixture": {"gaps": ["per-session memory limit"]}, "pids": 64)"));
  REQUIRE(
      daemon->wait_for_output("configuration reload refused: sandbox.requireFullEnforcement", 20s));
  CHECK(daemon->err().find("per-session memory limit") != std::string::npos);
  CHECK(daemon->err().find(std::string(kReloaded)) == std::string::npos);
  CHECK(!daemon->wait_for(200ms).has_value());

  // The same gap is accepted when the operator says so, and the new report is logged.
  h.write_config(h.config_text(
      R"("fixture": {"gaps": ["per-session memory limit"]}, "requireFullEnforcement": false)"));
  REQUIRE(daemon->wait_for_output(std::string(kReloaded), 20s));
  const auto err = daemon->err();
  const auto report = err.find("the enforcement report changed");
  REQUIRE(report != std::string::npos);
  CHECK(err.find("- per-session memory limit", report) != std::string::npos);
  CHECK(err.find("run with 1 unenforced guarantee(s)") != std::string::npos);
  stop_serving(*daemon);
}

TEST_CASE("a change a reload does not reach is logged once, and again when it is undone") {
  DaemonHarness h;
  const auto started = h.config_text();
  auto daemon = start_serving(h, started);
  const std::string held = "chat.allowedUserIds: a change to `chat.allowedUserIds` is not applied";

  const auto widened =
      replaced(started, R"("allowedUserIds": ["200"])", R"("allowedUserIds": ["200", "201"])");
  h.write_config(widened);
  REQUIRE(wait_for_count(*daemon, std::string(kReloaded), 1));
  CHECK(occurrences(daemon->err(), held) == 1);

  // Another edit, the held one still in the file: it is not said again.
  h.write_config(replaced(widened, R"("network": "none")", R"("network": "none", "pids": 64)"));
  REQUIRE(wait_for_count(*daemon, std::string(kReloaded), 2));
  CHECK(occurrences(daemon->err(), held) == 1);

  h.write_config(started);
  REQUIRE(wait_for_count(*daemon, std::string(kReloaded), 3));
  CHECK(occurrences(daemon->err(), held) == 1);
  CHECK(daemon->err().find(
            "`chat.allowedUserIds` in the file matches the value the daemon started with again") !=
        std::string::npos);
  stop_serving(*daemon);
}

TEST_CASE("a reload whose held fields no longer fit the new file is refused whole") {
  DaemonHarness h;
  const auto started = h.config_text();
  auto daemon = start_serving(h, started);

  // Valid alone, but stateDir is held, and the new projectRoot lies inside the one in use.
  const auto state = (h.dir() / "state").string();
  auto moved = replaced(started, "\"" + state + "\"", "\"" + state + "-two\"");
  moved =
      replaced(moved, "\"" + (h.dir() / "projects").string() + "\"", "\"" + state + "/projects\"");
  h.write_config(moved);
  REQUIRE(daemon->wait_for_output("the configuration does not hold together", 20s));
  CHECK(daemon->err().find("`projectRoot` (" + state + "/projects) is inside `stateDir`") !=
        std::string::npos);
  CHECK(daemon->err().find(std::string(kReloaded)) == std::string::npos);
  stop_serving(*daemon);
}

TEST_CASE("a reload naming a rules file that cannot be read is refused with the reason",
          "[key:agent.rulesPath]") {
  DaemonHarness h;
  const auto rules = h.dir().path() / "rules.md";
  std::ofstream(rules) << "Keep every change small.\n";
  const auto with_rules = [&](const std::filesystem::path& path) {
    return replaced(h.config_text(), "\"agent\": {",
                    "\"agent\": {\"rulesPath\": \"" + path.string() + "\", ");
  };
  auto daemon = start_serving(h, with_rules(rules));
  CHECK(daemon->err().find("house rules from " + rules.string()) != std::string::npos);

  const auto missing = h.dir().path() / "gone.md";
  h.write_config(with_rules(missing));
  REQUIRE(wait_for_count(*daemon, "configuration reload refused", 1));
  CHECK(daemon->err().find("agent.rulesPath names " + missing.string()) != std::string::npos);
  CHECK(occurrences(daemon->err(), std::string(kReloaded)) == 0);
  CHECK(!daemon->wait_for(200ms).has_value());  // still serving
  stop_serving(*daemon);
}
