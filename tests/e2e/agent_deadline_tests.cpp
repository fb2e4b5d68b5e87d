// The deadlines errand keeps on the agent: timeouts.startupMs for its handshake,
// timeouts.questionMs for a permission question nobody answers, and timeouts.abortMs for a turn
// that goes on after !interrupt. Each is set far below its default, so a deadline the daemon
// ignored would run past the waits here.

#include "tests/e2e/e2e_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstdio>
#include <sstream>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// When the daemon logged the first line containing needle, from the line's own timestamp
// (YYYY-MM-DDTHH:MM:SS.mmm), so the daemon's timing is measured without the test's polling.
std::optional<std::chrono::sys_time<std::chrono::milliseconds>> logged_at(
    const std::string& log, const std::string& needle) {
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(needle) == npos) continue;
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, milli = 0;
    if (std::sscanf(line.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d", &year, &month, &day, &hour,
                    &minute, &second, &milli) != 7)
      return std::nullopt;
    const std::chrono::year_month_day date{std::chrono::year(year),
                                           std::chrono::month(static_cast<unsigned>(month)),
                                           std::chrono::day(static_cast<unsigned>(day))};
    return std::chrono::sys_days(date) + std::chrono::hours(hour) + std::chrono::minutes(minute) +
           std::chrono::seconds(second) + std::chrono::milliseconds(milli);
  }
  return std::nullopt;
}

TEST_CASE("an agent that never answers initialize fails the start after timeouts.startupMs",
          "[e2e]"
          "[key:timeouts.startupMs]") {
  E2eHarness h;
  h.set("timeouts.startupMs", 1500);
  h.set("sandbox.env", boost::json::object{{"FAKE_AGENT_INITIALIZE", "silent"}});
  h.start();
  const auto thread = h.post("hung: say never shown");
  REQUIRE(h.wait_for_text(thread, "could not start", 30s));
  const auto text = h.bot_text(thread);
  INFO(text);
  CHECK(text.find("the agent did not answer initialize within 1500 ms") != npos);
  CHECK(text.find("never shown") == npos);

  // The wait began once the sandbox ran the agent and ended with the deadline, not long after.
  const auto log = h.daemon_log();
  const auto session_id = h.sessions_of(thread).at(0).session_id;
  const auto launched = logged_at(log, "session " + session_id + ": sandbox");
  const auto failed = logged_at(log, "session " + session_id + ": could not start");
  REQUIRE(launched);
  REQUIRE(failed);
  const auto waited = *failed - *launched;
  CHECK(waited >= 1500ms);
  CHECK(waited < 4500ms);
  REQUIRE(eventually([&] { return h.sessions_of(thread).at(0).ended_at.has_value(); }, 20s));
  CHECK(h.sessions_of(thread).at(0).end_reason.find("initialize within 1500 ms") != npos);
}

TEST_CASE("a permission question nobody answers is declined after timeouts.questionMs",
          "[e2e]"
          "[key:timeouts.questionMs]") {
  E2eHarness h;
  h.set("agent.permissions", "ask");
  h.set("timeouts.questionMs", 1500);
  h.start();
  const auto posted = Clock::now();
  const auto thread = h.post("unanswered: ask touch asked.txt\nsay after the question");
  REQUIRE(h.wait_for_text(thread, "the agent asks before it goes on", 30s));
  const auto asked = Clock::now();
  REQUIRE(h.wait_for_text(thread, "nobody answered the agent's question in time", 10s));
  const auto declined = Clock::now();
  // The question was put after the prompt was posted, so the deadline cannot have passed
  // sooner than questionMs after the post; seen late by polling at worst, never much later.
  CHECK(declined - posted >= 1500ms);
  CHECK(declined - asked < 6s);
  // The agent was told: its request_permission came back cancelled, and the turn went on.
  REQUIRE(h.wait_for_text(thread, "permission: cancelled", 10s));
  REQUIRE(h.wait_for_text(thread, "done in", 20s));
  CHECK(h.bot_text(thread).find("after the question") != npos);
}

TEST_CASE("an agent that goes on after !interrupt is stopped after timeouts.abortMs",
          "[e2e]"
          "[key:timeouts.abortMs]") {
  E2eHarness h;
  h.set("timeouts.abortMs", 1500);
  h.set("sandbox.env", boost::json::object{{"FAKE_AGENT_CANCEL", "ignore"}});
  h.start();
  // The root's name is unique to this run, so no other test's command carries the marker.
  const auto marker = "abort-" + h.root().filename().string();
  const auto thread = h.post("stubborn: say working\nrun sleep 60; echo " + marker);
  REQUIRE(h.wait_for_text(thread, "working", 30s));
  REQUIRE(eventually([&] { return !processes_with(marker).empty(); }, 20s));

  const auto interrupted = Clock::now();
  h.post("!interrupt", thread);
  REQUIRE(h.wait_for_text(thread, "interrupting the running turn", 10s));
  // The default (15 s) would outlast this wait.
  REQUIRE(h.wait_for_text(thread, "did not stop the turn within timeouts.abortMs", 10s));
  CHECK(Clock::now() - interrupted >= 1500ms);
  REQUIRE(eventually([&] { return h.sessions_of(thread).at(0).ended_at.has_value(); }, 20s));
  CHECK(h.sessions_of(thread).at(0).end_reason ==
        "the agent did not stop its turn when interrupted");
  // Stopping the session stopped the sandbox, and with it the command the agent would not end.
  CHECK(eventually([&] { return processes_with(marker).empty(); }, 20s));
}

}  // namespace
}  // namespace errand::e2e
