// How sessions end without a command (idle, the thread archived or deleted), prompts that wait
// too long, and the agent's permission questions under agent.permissions "ask".

#include "tests/e2e/e2e_harness.hpp"

#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using sessions::ThreadState;
using sessions::TurnOutcome;

const std::string kExpiredGlyph = "\xE2\x8C\x9B";

bool ended(E2eHarness& h, const std::string& thread, std::size_t sessions = 1) {
  const auto all = h.sessions_of(thread);
  return all.size() == sessions && all.back().ended_at.has_value();
}

TEST_CASE("an idle session ends after timeouts.idleMs and its thread stays resumable",
          "[e2e]"
          "[key:timeouts.idleMs]") {
  E2eHarness h;
  h.set("timeouts.idleMs", 1500);
  h.start();
  const auto thread = h.post("idle: say soon idle");
  REQUIRE(h.wait_for_text(thread, "done in"));
  REQUIRE(eventually([&] { return ended(h, thread); }, 20s));
  CHECK(h.sessions_of(thread).at(0).end_reason == "idle");
  CHECK(h.threads_db()->find_thread(thread).value()->state == ThreadState::resumable);
  h.post("say awake again", thread);
  REQUIRE(h.wait_for_text(thread, "awake again"));
  CHECK(h.sessions_of(thread).size() == 2);
}

TEST_CASE("archiving a thread stops its session; deleting one closes it for good", "[e2e]") {
  E2eHarness h;
  h.start();
  const auto archived = h.post("archived: say one");
  const auto deleted = h.post("deleted: say two");
  REQUIRE(h.wait_for_text(archived, "done in"));
  REQUIRE(h.wait_for_text(deleted, "done in"));

  h.discord().archive_thread(archived);
  REQUIRE(eventually([&] { return ended(h, archived); }, 20s));
  CHECK(h.sessions_of(archived).at(0).end_reason == "the thread was archived");
  CHECK(h.threads_db()->find_thread(archived).value()->state == ThreadState::resumable);

  h.discord().delete_thread(deleted);
  REQUIRE(eventually([&] { return ended(h, deleted); }, 20s));
  CHECK(h.sessions_of(deleted).at(0).end_reason == "the thread was deleted");
  REQUIRE(eventually(
      [&] { return h.threads_db()->find_thread(deleted).value()->state == ThreadState::closed; }));
}

TEST_CASE(
    "a prompt that waits longer than maxQueueWaitMs gets the expired reaction and a "
    "sentence",
    "[e2e]"
    "[key:limits.maxQueueWaitMs]") {
  E2eHarness h;
  h.set("limits.maxConcurrentTurns", 1);
  h.set("limits.maxQueueWaitMs", 1000);
  h.start();
  const auto busy = h.post("busy: sleep 6000\nsay finally");
  REQUIRE(eventually([&] {
    const auto t = h.turn(busy);
    return t && t->started_at.has_value();
  }));
  const auto waiting = h.post("waiting: say never runs");
  REQUIRE(h.wait_for_text(waiting, "waited longer than", 30s));
  CHECK(h.turn(waiting)->outcome == TurnOutcome::expired);
  // Reactions travel on their own lane, so the mark may land just after the sentence.
  CHECK(eventually(
      [&] {
        const auto message = h.discord().message(waiting);
        return message && std::find(message->reactions.begin(), message->reactions.end(),
                                    kExpiredGlyph) != message->reactions.end();
      },
      10s));
  REQUIRE(h.wait_for_text(busy, "finally", 30s));
  CHECK(h.count_text(waiting, "never runs") == 0);
}

TEST_CASE("under agent.permissions ask the owner answers the agent's question in the thread",
          "[e2e]"
          "[key:agent.permissions]") {
  E2eHarness h;
  h.set("agent.permissions", "ask");
  h.start();
  const auto thread = h.post("asking: ask touch asked.txt");
  REQUIRE(h.wait_for_text(thread, "the agent asks before it goes on"));
  h.post("1", thread);
  REQUIRE(h.wait_for_text(thread, "permission: selected allow-once"));
  REQUIRE(h.wait_for_text(thread, "done in"));
}

}  // namespace
}  // namespace errand::e2e
