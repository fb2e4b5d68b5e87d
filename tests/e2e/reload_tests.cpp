// Editing the configuration of the real daemon while it serves: what a reload does not reach
// keeps working as it started (who may use the bot, the broker sessions run behind) until a
// restart, and what it reaches (a grant) is in the next session and in the logged report.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/support/temp_dir.hpp"

#include <stdlib.h>

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kNewcomer = "700000000000000007";

std::size_t occurrences(const std::string& text, std::string_view needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

// Writes the harness's configuration over the file the daemon follows and waits until the
// daemon has taken it (the n-th reload).
void reload(E2eHarness& h, std::size_t nth) {
  errand::test::write_file(h.root() / "config.json", boost::json::serialize(h.config()));
  const bool taken = eventually(
      [&] { return occurrences(h.daemon_log(), "configuration reloaded from") >= nth; }, 30s);
  INFO(h.daemon_log());
  REQUIRE(taken);
}

TEST_CASE("a user added to allowedUserIds by a reload is refused until a restart",
          "[e2e][sanitized]") {
  E2eHarness h;
  h.start();
  const auto channel = h.discord().options().channel_id;
  h.post("newcomer: say before the edit", {}, kNewcomer);
  REQUIRE(h.wait_for_text(channel, "not in chat.allowedUserIds"));

  h.set("chat.allowedUserIds", boost::json::array{std::string(kOwner), std::string(kNewcomer)});
  reload(h, 1);
  CHECK(h.daemon_log().find("chat.allowedUserIds: a change to `chat.allowedUserIds` is not "
                            "applied by a reload") != npos);
  const auto refused = h.post("newcomer: say after the edit", {}, kNewcomer);
  REQUIRE(h.wait_for_text(channel, "not in chat.allowedUserIds", 60s, 2));
  CHECK(!h.turn(refused).has_value());
  CHECK(h.threads_db()->find_thread(refused).value() == std::nullopt);

  // The restart reads the file as written.
  CHECK(h.stop() == 0);
  h.start();
  const auto opened = h.post("newcomer: say after the restart", {}, kNewcomer);
  REQUIRE(h.wait_for_text(opened, "after the restart"));
  REQUIRE(h.wait_for_text(opened, "done in"));
}

TEST_CASE("a session started after a switch to egress open still runs behind the broker",
          "[e2e][sanitized]") {
  E2eHarness h;
  h.start();
  h.set("sandbox.egress.mode", "open");
  reload(h, 1);
  CHECK(h.daemon_log().find("sandbox.egress.mode: a change to `sandbox.egress.mode` is not "
                            "applied by a reload") != npos);

  const auto thread = h.post("switched: run env > env.txt\nprovider say hi");
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto env = errand::test::read_file(h.project_root() / "switched" / "env.txt");
  INFO(env);
  // Under open the agent would hold the real key and no proxy; it holds a stand-in and its
  // broker's proxy, and the broker presented the real key.
  CHECK(env.find("ANTHROPIC_API_KEY=errand-session-") != npos);
  CHECK(env.find("HTTPS_PROXY=http://errand:errand-session-") != npos);
  CHECK(env.find(h.provider_key()) == npos);
  const auto calls = h.provider().requests();
  REQUIRE(!calls.empty());
  CHECK(calls.back().header("x-api-key") == h.provider_key());
  CHECK(h.bot_text(thread).find("Hello from the fake provider.") != npos);
}

// A directory outside /tmp, which bailey places itself and so refuses to grant.
struct SharedDirectory : errand::test::TempDir {
  SharedDirectory() : errand::test::TempDir("/var/tmp", "errand-e2e-shared-") {}
};

TEST_CASE("a grant added by a reload is logged in the new report and reaches the next session",
          "[e2e][sanitized]") {
  E2eHarness h;
  const SharedDirectory directory;
  const auto& shared = directory.path();
  errand::test::write_file(shared / "note.txt", "granted-by-reload\n");
  h.start();

  const auto before = h.post("before: run cat " + (shared / "note.txt").string() + "; true");
  REQUIRE(h.wait_for_text(before, "done in"));
  CHECK(h.bot_text(before).find("granted-by-reload") == npos);

  h.set("sandbox.policyExtra", boost::json::object{{"read", boost::json::array{shared.string()}}});
  reload(h, 1);
  const auto log = h.daemon_log();
  const auto report = log.find("the enforcement report changed");
  REQUIRE(report != npos);
  CHECK(log.find("granted by sandbox.policyExtra: " + shared.string() + " (read)", report) != npos);

  const auto after = h.post("after: run cat " + (shared / "note.txt").string());
  REQUIRE(h.wait_for_text(after, "done in"));
  CHECK(h.bot_text(after).find("granted-by-reload") != npos);
}

}  // namespace
}  // namespace errand::e2e
