#include "tests/support/result_checks.hpp"
#include "tests/unit/sessions/queue_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using errand::sessions::QueueLimits;
using errand::sessions::Rejected;
using errand::test::is_admitted;
using errand::test::ok;
using errand::test::queued_at;
using errand::test::QueueHarness;

namespace {

QueueLimits limits(std::size_t turns, std::size_t queue_length = 32,
                   std::chrono::milliseconds wait = 900'000ms) {
  QueueLimits l;
  l.max_concurrent_turns = turns;
  l.max_queue_length = queue_length;
  l.max_queue_wait = wait;
  return l;
}

}  // namespace

TEST_CASE("prompts beyond the turn slots wait and are admitted first in, first out") {
  QueueHarness h(limits(2));
  CHECK(is_admitted(h.submit("s1", "m1")));
  CHECK(is_admitted(h.submit("s2", "m2")));
  CHECK(queued_at(h.submit("s3", "m3")) == 1);
  CHECK(queued_at(h.submit("s4", "m4")) == 2);
  CHECK(queued_at(h.submit("s5", "m5")) == 3);
  CHECK(h.in_flight() == 2);

  h.release("m2");
  CHECK(h.in_flight() == 2);
  h.release("m1");
  h.release("m3");
  h.release("m4");
  h.release("m5");
  CHECK(h.admitted_order == std::vector<std::string>{"m1", "m2", "m3", "m4", "m5"});
  CHECK(h.in_flight() == 0);
  CHECK(h.queue.snapshot().queued == 0);
}

TEST_CASE("no more turns than maxConcurrentTurns are ever held, however prompts come and go") {
  QueueHarness h(limits(3));
  std::size_t most = 0;
  for (int i = 0; i < 40; ++i) {
    h.submit("s" + std::to_string(i), "m" + std::to_string(i));
    h.settle();
    most = std::max(most, h.in_flight());
    // Every third step, the oldest held turn ends.
    if (i % 3 == 2) {
      for (auto& message : h.admitted_order) {
        auto& ticket = h.told[message].ticket;
        if (ticket && ticket->held()) {
          h.release(message);
          break;
        }
      }
    }
    most = std::max(most, h.in_flight());
    CHECK(h.in_flight() <= 3);
  }
  CHECK(most == 3);
  while (h.queue.snapshot().queued > 0 || h.in_flight() > 0) {
    for (auto& message : std::vector<std::string>(h.admitted_order)) {
      auto& ticket = h.told[message].ticket;
      if (ticket && ticket->held()) h.release(message);
    }
  }
  REQUIRE(h.admitted_order.size() == 40);
  for (int i = 0; i < 40; ++i) CHECK(h.admitted_order[i] == "m" + std::to_string(i));
}

TEST_CASE("a waiting prompt is told its position only when it changes") {
  QueueHarness h(limits(1));
  h.submit("a", "m1");
  CHECK(queued_at(h.submit("b", "m2")) == 1);
  CHECK(queued_at(h.submit("c", "m3")) == 2);
  CHECK(queued_at(h.submit("d", "m4")) == 3);
  h.settle();
  // Submitting reports the position in the answer, not again through the callback.
  CHECK(h.told["m2"].positions.empty());
  CHECK(h.told["m4"].positions.empty());

  // Withdrawing the last one moves nobody.
  CHECK(h.queue.withdraw("m4"));
  h.settle();
  CHECK(h.told["m2"].positions.empty());
  CHECK(h.told["m3"].positions.empty());

  // m2 is admitted, m3 moves from 2 to 1.
  h.release("m1");
  CHECK(h.told["m2"].ticket.has_value());
  CHECK(h.told["m3"].positions == std::vector<std::size_t>{1});
  // A sweep that changes nothing tells nobody anything.
  h.queue.sweep();
  h.settle();
  CHECK(h.told["m3"].positions == std::vector<std::size_t>{1});
}

TEST_CASE("a full queue refuses with a sentence naming its length", "[key:limits.maxQueueLength]") {
  QueueHarness h(limits(1, 2));
  h.submit("a", "m1");
  h.submit("b", "m2");
  h.submit("c", "m3");
  const auto outcome = h.submit("d", "m4");
  REQUIRE(std::holds_alternative<Rejected>(outcome));
  CHECK(std::get<Rejected>(outcome).sentence ==
        "the queue is full at 2 prompts; try again when it drains");
  CHECK(h.queue.snapshot().queued == 2);
}

TEST_CASE("a prompt that waited longer than maxQueueWaitMs expires and the rest move up") {
  QueueHarness h(limits(1, 32, 1000ms));
  h.submit("a", "m1");
  h.submit("b", "m2");
  h.clock.advance(600ms);
  h.submit("c", "m3");
  h.clock.advance(399ms);
  h.queue.sweep();
  h.settle();
  CHECK_FALSE(h.told["m2"].expired);

  h.clock.advance(1ms);
  h.queue.sweep();
  h.settle();
  CHECK(h.told["m2"].expired);
  CHECK_FALSE(h.told["m3"].expired);
  CHECK(h.told["m3"].positions == std::vector<std::size_t>{1});
  CHECK(h.queue.snapshot().queued == 1);

  h.clock.advance(600ms);
  h.queue.sweep();
  h.settle();
  CHECK(h.told["m3"].expired);
  CHECK_FALSE(h.told["m3"].ticket.has_value());
  // A held turn never expires; only waiting does.
  CHECK(h.told["m1"].ticket->held());
}

TEST_CASE("a provider pause holds admission for every session until it ends") {
  QueueHarness h(limits(2));
  h.queue.pause("anthropic", h.clock.now() + 10s);
  CHECK(queued_at(h.submit("a", "m1")) == 1);
  CHECK(queued_at(h.submit("b", "m2")) == 2);
  CHECK(h.in_flight() == 0);
  CHECK(h.queue.snapshot().paused_providers == std::vector<std::string>{"anthropic"});

  h.clock.advance(9999ms);
  h.queue.sweep();
  h.settle();
  CHECK(h.in_flight() == 0);

  h.clock.advance(1ms);
  h.queue.sweep();
  h.settle();
  CHECK(h.admitted_order == std::vector<std::string>{"m1", "m2"});
  CHECK_FALSE(h.queue.snapshot().paused_until.has_value());
}

TEST_CASE("resume lifts a provider's pause early; another provider's pause still holds") {
  QueueHarness h(limits(2));
  h.queue.pause("anthropic", h.clock.now() + 60s);
  h.queue.pause("openai", h.clock.now() + 30s);
  h.submit("a", "m1");
  h.queue.resume("anthropic");
  h.settle();
  CHECK(h.in_flight() == 0);
  h.queue.resume("openai");
  h.settle();
  CHECK(h.admitted_order == std::vector<std::string>{"m1"});
}

TEST_CASE("a provider's pause holds only its own sessions' prompts; a fallback's pass",
          "[key:agent.fallback]") {
  QueueHarness h(limits(2));
  h.queue.pause("anthropic", h.clock.now() + 60s);
  auto on = [&](const std::string& session, const std::string& message, std::string provider) {
    auto p = h.prompt(session, message);
    p.provider = std::move(provider);
    auto outcome = h.queue.submit(std::move(p));
    if (auto* admitted = std::get_if<errand::sessions::Admitted>(&outcome)) {
      h.told[message].ticket = std::move(admitted->ticket);
      h.admitted_order.push_back(message);
      return errand::sessions::SubmitOutcome{errand::sessions::Admitted{}};
    }
    return outcome;
  };
  CHECK(queued_at(on("a", "m1", "anthropic")) == 1);
  CHECK(is_admitted(on("b", "m2", "backup")));
  // A prompt naming no provider is held by any pause.
  CHECK(queued_at(on("c", "m3", "")) == 2);
  CHECK(is_admitted(on("d", "m4", "backup")));
  CHECK(queued_at(on("e", "m5", "backup")) == 3);
  // A freed slot goes to the backup prompt behind the two held ones.
  h.release("m2");
  CHECK(h.admitted_order == std::vector<std::string>{"m2", "m4", "m5"});
  const auto ends = h.queue.snapshot().pause_ends;
  REQUIRE(ends.size() == 1);
  CHECK(ends.at("anthropic") == h.clock.now() + 60s);
  h.queue.resume("anthropic");
  h.release("m4");
  CHECK(h.admitted_order == std::vector<std::string>{"m2", "m4", "m5", "m1"});
}

TEST_CASE("cancel_session drops that session's waiting prompts and nobody else's") {
  QueueHarness h(limits(1));
  h.submit("a", "m1");
  h.submit("b", "m2");
  h.submit("c", "m3");
  h.submit("b", "m4");
  h.submit("d", "m5");
  const auto dropped = h.queue.cancel_session("b");
  h.settle();
  CHECK(dropped == std::vector<std::string>{"m2", "m4"});
  CHECK(h.told["m3"].positions == std::vector<std::size_t>{1});
  CHECK(h.told["m5"].positions == std::vector<std::size_t>{2});
  h.release("m1");
  CHECK(h.admitted_order == std::vector<std::string>{"m1", "m3"});
  CHECK_FALSE(h.told["m2"].expired);
}

TEST_CASE("a ticket frees its slot exactly once; a second release is logged as a bug") {
  QueueHarness h(limits(2));
  h.submit("a", "m1");
  h.submit("b", "m2");
  h.submit("c", "m3");
  auto& ticket = *h.told["m1"].ticket;
  ticket.release();
  h.settle();
  CHECK(h.admitted_order.back() == "m3");
  CHECK(h.in_flight() == 2);

  ticket.release();
  h.settle();
  CHECK(h.in_flight() == 2);
  CHECK_THAT(h.log_text.str(), Catch::Matchers::ContainsSubstring("released twice"));

  // Dropping a held ticket releases it; dropping a released or moved-from one does nothing.
  {
    auto moved = std::move(*h.told["m2"].ticket);
    CHECK_FALSE(h.told["m2"].ticket->held());
  }
  CHECK(h.in_flight() == 1);
  h.told["m1"].ticket.reset();
  h.told["m2"].ticket.reset();
  CHECK(h.in_flight() == 1);
}

TEST_CASE("a ticket nobody takes is released, so the slot is not lost") {
  QueueHarness h(limits(1));
  h.submit("a", "m1");
  auto unwanted = h.prompt("b", "m2");
  unwanted.on_admitted = nullptr;
  h.queue.submit(std::move(unwanted));
  h.submit("c", "m3");
  h.release("m1");
  h.settle();
  CHECK(h.admitted_order == std::vector<std::string>{"m1", "m3"});
}

TEST_CASE("a session holds one turn at a time; other sessions pass its second prompt") {
  QueueHarness h(limits(2));
  CHECK(is_admitted(h.submit("a", "a1")));
  CHECK(queued_at(h.submit("a", "a2")) == 1);
  CHECK(is_admitted(h.submit("b", "b1")));
  h.release("a1");
  CHECK(h.admitted_order == std::vector<std::string>{"a1", "b1", "a2"});
}

TEST_CASE("the same message is never queued twice") {
  QueueHarness h(limits(1));
  h.submit("a", "m1");
  h.submit("b", "m2");
  CHECK(std::holds_alternative<Rejected>(h.submit("b", "m2")));
  CHECK(std::holds_alternative<Rejected>(h.submit("a", "m1")));
}

TEST_CASE("live sessions are counted apart from turns and refused past maxLiveSessions",
          "[key:limits.maxLiveSessions]") {
  auto l = limits(1);
  l.max_live_sessions = 2;
  QueueHarness h(l);
  auto first = h.queue.reserve_session("s1");
  auto second = h.queue.reserve_session("s2");
  REQUIRE(ok(first));
  REQUIRE(ok(second));
  auto third = h.queue.reserve_session("s3");
  REQUIRE_FALSE(third.has_value());
  CHECK(third.error().kind == errand::sdk::Error::Kind::limit);
  CHECK_THAT(third.error().message,
             Catch::Matchers::ContainsSubstring("all 2 live-session places"));
  // Turn slots are untouched by reservations.
  CHECK(is_admitted(h.submit("s1", "m1")));
  first->release();
  CHECK(ok(h.queue.reserve_session("s3")));
  CHECK(h.queue.snapshot().live_sessions == 1);  // s2 held; the s3 result above was dropped
}

TEST_CASE("more slots on reload admit waiting prompts at once; a shorter queue keeps them") {
  QueueHarness h(limits(1, 4));
  h.submit("a", "m1");
  h.submit("b", "m2");
  h.submit("c", "m3");
  h.submit("d", "m4");
  h.queue.update_limits(limits(3, 1));
  h.settle();
  CHECK(h.admitted_order == std::vector<std::string>{"m1", "m2", "m3"});
  CHECK(h.queue.snapshot().queued == 1);
  CHECK(std::holds_alternative<Rejected>(h.submit("e", "m5")));
}

TEST_CASE("limits are read from the effective configuration and refused when not positive",
          "[key:limits.maxConcurrentTurns]"
          "[key:limits.maxLiveSessions]"
          "[key:limits.maxQueueLength]"
          "[key:limits.maxQueueWaitMs]") {
  boost::json::object config{{"limits",
                              {{"maxConcurrentTurns", 5},
                               {"maxLiveSessions", 6},
                               {"maxQueueLength", 7},
                               {"maxQueueWaitMs", 8000}}}};
  auto read = errand::sessions::queue_limits_from_config(config);
  REQUIRE(ok(read));
  CHECK(read->max_concurrent_turns == 5);
  CHECK(read->max_live_sessions == 6);
  CHECK(read->max_queue_length == 7);
  CHECK(read->max_queue_wait == 8000ms);
  config["limits"].as_object()["maxQueueLength"] = 0;
  auto refused = errand::sessions::queue_limits_from_config(config);
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message, Catch::Matchers::ContainsSubstring("limits.maxQueueLength"));
}

TEST_CASE("the sentences the thread is told") {
  CHECK(errand::sessions::queued_sentence(3) == "waiting for a turn slot, position 3 in the queue");
  CHECK_THAT(errand::sessions::expired_sentence(900'000ms),
             Catch::Matchers::ContainsSubstring("longer than 15 minutes"));
  CHECK(errand::sessions::describe_duration(90'000ms) == "90 seconds");
  CHECK(errand::sessions::describe_duration(9'000'000ms) == "2 hours 30 minutes");
}

TEST_CASE("a dropped prompt whose callback owns a ticket releases it without deadlocking") {
  QueueHarness h(limits(1));
  h.submit("a", "m1");
  // The waiting prompt's callback is the last owner of m1's ticket, as a session actor that
  // holds its own turn might be.
  auto owner = std::make_shared<errand::sessions::TurnTicket>(std::move(*h.told["m1"].ticket));
  auto waiting = h.prompt("b", "m2");
  waiting.on_expired = [owner] {};
  h.queue.submit(std::move(waiting));
  owner.reset();
  CHECK(h.in_flight() == 1);
  CHECK(h.queue.cancel_session("b") == std::vector<std::string>{"m2"});
  CHECK(h.in_flight() == 0);
}
