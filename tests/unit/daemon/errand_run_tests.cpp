// `errand run` as an operator meets it: refusals with their exit codes, the enforcement report,
// the state lock and a clean stop on a signal.

#include "core/daemon/root_refusal.hpp"
#include "tests/support/daemon_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <csignal>
#include <filesystem>
#include <sstream>

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

TEST_CASE("errand run as root is refused with exit 2, saying how to run it instead") {
  DaemonHarness h;
  h.write_config(h.config_text());
  // uid 0 in a user namespace of its own: root as far as errand can tell, whichever account
  // the suite runs as, and the only way the tests start the daemon as root.
  auto argv = h.argv({"run"});
  argv.insert(argv.begin(), {"/usr/bin/unshare", "--user", "--map-root-user", "--"});
  const auto r = run_to_end(argv, h.environment(), h.dir().path());
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("refusing to run as root (uid 0)") != std::string::npos);
  CHECK(r.err.find("useradd --system") != std::string::npos);
  CHECK(r.err.find("Delegate=yes") != std::string::npos);
  // Refused before anything was read or made.
  CHECK_FALSE(std::filesystem::exists(h.dir() / "state"));
}

TEST_CASE("the daemon the suites start runs as an ordinary account holding no capability") {
  DaemonHarness h;
  h.write_config(h.config_text());
  auto daemon = h.start({"run"});
  REQUIRE(daemon->wait_for_output("serving with the fixture sandbox backend", 20s));
  const auto status = read_file("/proc/" + std::to_string(daemon->pid()) + "/status");
  const auto field = [&](const std::string& name) {
    const auto at = status.find("\n" + name + ":");
    REQUIRE(at != std::string::npos);
    return status.substr(at + name.size() + 2, status.find('\n', at + 1) - at - name.size() - 2);
  };
  INFO(status);
  // Real, effective, saved and filesystem uid: none is root.
  std::istringstream uids(field("Uid"));
  int seen = 0;
  for (long uid = 0; uids >> uid; ++seen) CHECK(uid != 0);
  CHECK(seen == 4);
  CHECK(field("CapEff").find_first_not_of("0\t ") == std::string::npos);
  CHECK(field("CapPrm").find_first_not_of("0\t ") == std::string::npos);
  daemon->signal(SIGTERM);
  CHECK(daemon->wait_for(20s) == 0);
}

TEST_CASE("root is refused whether it is the real or the effective uid") {
  using errand::daemon::refuse_root;
  CHECK(refuse_root(0, 0).has_error());
  CHECK(refuse_root(0, 1000).has_error());
  CHECK(refuse_root(1000, 0).has_error());
  CHECK(refuse_root(1000, 0).error().kind == errand::sdk::Error::Kind::refused);
  CHECK_FALSE(refuse_root(1000, 1000).has_error());
}
