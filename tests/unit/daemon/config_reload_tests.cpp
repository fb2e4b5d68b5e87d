// Editing the live configuration: a broken file is refused whole and the daemon keeps serving
// on what it had; a valid edit is applied; a change a reload cannot reach is said so.

#include "tests/unit/daemon/daemon_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <csignal>

using namespace errand::test;
using namespace std::chrono_literals;

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
