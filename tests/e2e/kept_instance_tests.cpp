// A thread's incus instance kept between its sessions, through the whole daemon: the session that
// goes idle stops the thread's instance rather than deleting it, the thread's next prompt starts
// it again with what the agent left outside /workspace and /state, and !stop deletes it.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/e2e/e2e_incus.hpp"

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <optional>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

// The thread's kept instance of this daemon, if there is one.
std::optional<ErrandInstance> kept_for(const E2eHarness& h, const std::string& thread) {
  const auto own = h.own_instances();
  for (auto& instance : errand_instances())
    if (instance.keep == thread && std::find(own.begin(), own.end(), instance.name) != own.end())
      return instance;
  return std::nullopt;
}

}  // namespace

TEST_CASE(
    "an idle incus thread keeps its instance stopped, its next prompt starts it again with what "
    "the agent left there, and !stop deletes it",
    "[e2e][incus][key:sandbox.incus.keptTotal][key:timeouts.idleMs]") {
  E2eHarness h(Backend::incus);
  h.set("timeouts.idleMs", 1500);
  h.start();
  const auto thread =
      h.post("keep: run echo first-in-$(hostname); echo left-by-first > /var/tmp/kept-mark");
  REQUIRE(h.wait_for_text(thread, "done in", 120s));
  const std::string name = "errand-kept-" + thread;
  CHECK(h.bot_text(thread).find("first-in-" + name) != npos);

  // Idle: the session ends and its instance stays, stopped.
  REQUIRE(eventually(
      [&] {
        const auto all = h.sessions_of(thread);
        return all.size() == 1 && all[0].ended_at.has_value();
      },
      30s));
  CHECK(h.sessions_of(thread).at(0).end_reason == "idle");
  REQUIRE(eventually(
      [&] {
        const auto kept = kept_for(h, thread);
        return kept && kept->status == "Stopped";
      },
      30s));

  // The session leaves the daemon's table just after threads.db records its end; a message in
  // that moment is refused with "send the message again", so it is sent again.
  std::size_t posted = 0;
  const bool answered = eventually(
      [&] {
        if (h.count_text(thread, "done in") >= 2) return true;
        if (h.count_text(thread, "send the message again") == posted && posted < 5) {
          h.post("run echo again-in-$(hostname) found-$(cat /var/tmp/kept-mark)", thread);
          ++posted;
        }
        return false;
      },
      120s);
  const auto text = h.bot_text(thread);
  INFO(text << "\n--- daemon log ---\n" << h.daemon_log());
  REQUIRE(answered);
  CHECK(text.find("again-in-" + name + " found-left-by-first") != npos);
  CHECK(text.find("resumed; ") != npos);
  CHECK(text.find("resumed in a new sandbox") == npos);
  CHECK(h.sessions_of(thread).size() == 2);

  // !stop archives the thread: it keeps no instance.
  h.post("!stop", thread);
  REQUIRE(h.wait_for_text(thread, "the session stopped", 60s));
  CHECK(eventually([&] { return !kept_for(h, thread).has_value(); }, 30s));
  CHECK(h.stop() == 0);
}

}  // namespace errand::e2e

namespace errand::e2e {

TEST_CASE(
    "a kept instance deleted after its session ended, to keep sandbox.incus.keptTotal, is told "
    "in its thread",
    "[e2e][incus][key:sandbox.incus.keptTotal]") {
  E2eHarness h(Backend::incus);
  h.set("timeouts.idleMs", 1500);
  h.set("sandbox.incus.keptTotal", "100m");
  h.start();
  // 200 MiB on the root disk, synced so incusd counts it when the instance stops.
  const auto thread =
      h.post("big: run head -c 200M /dev/urandom > /var/tmp/big && sync && echo wrote-big");
  REQUIRE(h.wait_for_text(thread, "done in", 120s));
  const bool told = h.wait_for_text(thread, "was deleted to make room", 60s);
  const auto text = h.bot_text(thread);
  INFO(text << "\n--- daemon log ---\n" << h.daemon_log());
  REQUIRE(told);
  CHECK(text.find("this thread's stopped instance errand-kept-" + thread) != npos);
  CHECK(text.find("more than sandbox.incus.keptTotal (100m)") != npos);
  CHECK(h.sessions_of(thread).at(0).end_reason == "idle");
  CHECK(eventually([&] { return !kept_for(h, thread).has_value(); }, 10s));
  CHECK(h.stop() == 0);
}

}  // namespace errand::e2e
