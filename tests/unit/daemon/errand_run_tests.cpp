// `errand run` as an operator meets it: refusals with their exit codes, the enforcement report,
// the state lock and a clean stop on a signal.

#include "tests/unit/daemon/daemon_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <csignal>

using namespace errand::test;
using namespace std::chrono_literals;

TEST_CASE(
    "a configuration with a misspelt key, a relative path and a wrong type is refused naming all "
    "three") {
  DaemonHarness h;
  auto text = h.config_text();
  text.replace(text.find("\"projectRoot\": \""), 16, "\"projectRoot\": \"relative/");
  text.replace(text.find("\"channelId\""), 11, "\"chanelId\"");
  text.replace(text.find("\"network\": \"none\""), 17, "\"network\": \"none\", \"pids\": \"many\"");
  h.write_config(text);
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("chat.chanelId") != std::string::npos);
  CHECK(r.err.find("chat.channelId") != std::string::npos);  // the suggestion
  CHECK(r.err.find("projectRoot") != std::string::npos);
  CHECK(r.err.find("sandbox.pids") != std::string::npos);
}

TEST_CASE("a backend whose probe reports a gap stops the daemon with exit 3 naming the gap",
          "[key:sandbox.requireFullEnforcement]") {
  DaemonHarness h;
  h.write_config(h.config_text(R"("fixture": {"gaps": ["per-session memory limit"]})"));
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("per-session memory limit") != std::string::npos);
  CHECK(r.err.find("requireFullEnforcement") != std::string::npos);
  CHECK(r.out.find("1 guarantee(s) cannot be enforced") != std::string::npos);
}

TEST_CASE(
    "with requireFullEnforcement false the daemon starts, prints the gap and stops cleanly on "
    "SIGTERM",
    "[key:sandbox.requireFullEnforcement]"
    "[key:chat.transport]") {
  DaemonHarness h;
  h.write_config(h.config_text(
      R"("requireFullEnforcement": false, "fixture": {"gaps": ["per-session memory limit"]})"));
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));
  CHECK(daemon->out().find("per-session memory limit") != std::string::npos);
  daemon->signal(SIGTERM);
  CHECK(daemon->wait_for(20s) == 0);
}

TEST_CASE("a missing sandbox backend plugin is refused with exit 2, never a fallback",
          "[key:sandbox.backend]") {
  DaemonHarness h;
  auto text = h.config_text();
  text.replace(text.find("\"backend\": \"fixture\""), 20, "\"backend\": \"absent\"");
  h.write_config(text);
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("sandbox-absent") != std::string::npos);
  CHECK(r.err.find("unsandboxed") != std::string::npos);
}

TEST_CASE("a second daemon on the same state directory exits 4", "[key:stateDir]") {
  DaemonHarness h;
  h.write_config(h.config_text());
  auto first = h.start({"run"});
  REQUIRE(first->wait_for_output("serving with the fixture sandbox backend", 20s));
  const auto second = h.run({"run"});
  CHECK(second.exit_code == 4);
  CHECK(second.err.find("errand.lock") != std::string::npos);
  first->signal(SIGINT);
  CHECK(first->wait_for(20s) == 0);
}

TEST_CASE("no configuration file found is exit 2 naming where errand looked") {
  DaemonHarness h;  // nothing written
  const auto r = h.run({"run"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(h.config_path().string()) != std::string::npos);
}

TEST_CASE("the chat token and provider key never reach the log",
          "[key:chat.token]"
          "[key:agent.providers.<name>.credential]") {
  DaemonHarness h;
  h.write_config(h.config_text());
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));
  daemon->signal(SIGTERM);
  REQUIRE(daemon->wait_for(20s) == 0);
  const auto all = daemon->out() + daemon->err();
  CHECK(all.find("configuration loaded") != std::string::npos);
  CHECK(all.find("fixture-chat-token-0123456789") == std::string::npos);
  CHECK(all.find("fixture-provider-key-abcdef") == std::string::npos);
  CHECK(all.find("[redacted]") != std::string::npos);
}
