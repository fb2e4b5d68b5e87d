// The turn runner on the real turn queue and real timers: which prompt runs, which waits, what
// a withdrawn, expired, refused or dropped prompt is told, and when the idle and abort timers
// stop the session. The effects are recorded as the session would receive them.

#include "core/sessions/turn_runner.hpp"
#include "tests/unit/sessions/queue_harness.hpp"

#include <boost/asio/strand.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using errand::sessions::InboundPrompt;
using errand::sessions::QueueLimits;
using errand::sessions::TurnOutcome;
using errand::sessions::TurnRunner;
using errand::test::QueueHarness;
namespace sdk = errand::sdk;

namespace {

InboundPrompt prompt_of(const std::string& message_id) {
  InboundPrompt p;
  p.ref.channel_id = "thread-1";
  p.ref.message_id = message_id;
  p.author_id = "owner";
  p.text = "do " + message_id;
  return p;
}

// One session's runner on a queue it may share with another session's submissions.
struct RunnerHarness {
  explicit RunnerHarness(QueueLimits limits, TurnRunner::Timeouts timeouts = {})
      : queue(limits), strand(boost::asio::make_strand(queue.io)) {
    runner.emplace(strand, queue.queue, "session-1", timeouts, effects());
  }

  TurnRunner::Effects effects() {
    TurnRunner::Effects e;
    e.react = [this](const sdk::MessageRef& ref, sdk::Reaction reaction, bool add) {
      reactions.push_back({ref.message_id, reaction, add});
    };
    e.notice = [this](std::string text) { notices.push_back(std::move(text)); };
    e.answer = [this](errand::chat::PromptAnswer answer) { answers.push_back(std::move(answer)); };
    e.ended = [this](const std::string& message_id, TurnOutcome outcome) {
      ended.emplace_back(message_id, outcome);
    };
    e.run = [this] { ran.push_back(runner->current()->prompt.ref.message_id); };
    e.idle = [this] { ++idle_stops; };
    e.stuck = [this] { ++stuck_stops; };
    return e;
  }

  // Runs the io_context until done() holds, or a cap only a broken timer reaches.
  template <class Done>
  void run_until(Done done) {
    const auto cap = std::chrono::steady_clock::now() + 10s;
    while (!done() && std::chrono::steady_clock::now() < cap) {
      queue.io.restart();
      queue.io.run_for(10ms);
    }
  }

  void run_for(std::chrono::milliseconds how_long) {
    const auto until = std::chrono::steady_clock::now() + how_long;
    run_until([&] { return std::chrono::steady_clock::now() >= until; });
  }

  struct Reacted {
    std::string message_id;
    sdk::Reaction reaction;
    bool add;
  };

  QueueHarness queue;
  boost::asio::strand<boost::asio::io_context::executor_type> strand;
  std::optional<TurnRunner> runner;
  std::vector<Reacted> reactions;
  std::vector<std::string> notices;
  std::vector<errand::chat::PromptAnswer> answers;
  std::vector<std::pair<std::string, TurnOutcome>> ended;
  std::vector<std::string> ran;
  int idle_stops = 0;
  int stuck_stops = 0;
};

constexpr TurnRunner::Timeouts kSlowTimers{10min, 10min};

}  // namespace

TEST_CASE("prompts held while the session starts run in order once it opens, one at a time") {
  RunnerHarness h({}, kSlowTimers);
  h.runner->hold(prompt_of("m1"));
  h.runner->hold(prompt_of("m2"));
  CHECK(h.runner->held() == 2);
  CHECK(h.ran.empty());

  h.runner->open();
  h.queue.settle();
  // The queue admits one turn per session: the second waits, marked queued, behind the first.
  REQUIRE(h.ran == std::vector<std::string>{"m1"});
  CHECK(h.runner->current()->prompt.ref.message_id == "m1");
  CHECK_FALSE(h.runner->current()->was_queued);
  CHECK(h.runner->queued() == 1);
  CHECK(h.runner->held() == 0);
  REQUIRE(h.reactions.size() == 1);
  CHECK(h.reactions[0].message_id == "m2");
  CHECK(h.reactions[0].reaction == sdk::Reaction::queued);
  CHECK(h.reactions[0].add);
  REQUIRE(h.notices.size() == 1);
  CHECK(h.notices[0] == errand::sessions::queued_sentence(1));

  const auto first_finished = h.runner->current()->finished;
  CHECK_FALSE(first_finished->fired());
  h.runner->finish();
  // A stop waits on this signal before it lets the session end.
  CHECK(first_finished->fired());
  CHECK(h.runner->current() == nullptr);
  CHECK(h.runner->turn_number() == 1);
  h.queue.settle();
  // The slot went back, so the waiting prompt got it.
  REQUIRE(h.ran == std::vector<std::string>{"m1", "m2"});
  CHECK(h.runner->current()->was_queued);
  CHECK(h.runner->turn_number() == 2);
  CHECK(h.queue.in_flight() == 1);
  h.runner->finish();
  CHECK(h.queue.in_flight() == 0);
  CHECK(h.ended.empty());  // a finished turn is recorded by the session, not the runner
}

TEST_CASE(
    "a queued prompt is told its place once; moving up changes its position, not the thread") {
  RunnerHarness h({}, kSlowTimers);
  h.runner->open();
  for (const auto* id : {"m1", "m2", "m3"}) h.runner->submit(prompt_of(id));
  h.queue.settle();
  REQUIRE(h.ran == std::vector<std::string>{"m1"});
  REQUIRE(h.notices == std::vector<std::string>{errand::sessions::queued_sentence(1),
                                                errand::sessions::queued_sentence(2)});

  h.runner->finish();
  h.queue.settle();
  REQUIRE(h.ran == std::vector<std::string>{"m1", "m2"});
  // m3 moved from 2 to 1: known to the runner, not posted again.
  CHECK(h.runner->queue_position() == 1);
  CHECK(h.notices.size() == 2);
}

TEST_CASE("a withdrawn prompt leaves the runner, whether held or queued, and only then") {
  RunnerHarness h({}, kSlowTimers);
  h.runner->hold(prompt_of("held"));
  CHECK(h.runner->withdraw("held"));
  CHECK(h.runner->held() == 0);

  h.runner->open();
  h.runner->submit(prompt_of("running"));
  h.runner->submit(prompt_of("waiting"));
  h.queue.settle();
  CHECK(h.runner->withdraw("waiting"));
  CHECK(h.runner->queued() == 0);
  // The running turn and a message never seen are not withdrawn.
  CHECK_FALSE(h.runner->withdraw("running"));
  CHECK_FALSE(h.runner->withdraw("unknown"));
  CHECK(h.ended == std::vector<std::pair<std::string, TurnOutcome>>{
                       {"held", TurnOutcome::cancelled}, {"waiting", TurnOutcome::cancelled}});

  // The withdrawn prompt never runs, even once the slot is free.
  h.runner->finish();
  h.queue.settle();
  CHECK(h.ran == std::vector<std::string>{"running"});
}

TEST_CASE("a prompt the full queue refuses is answered and recorded as rejected") {
  QueueLimits limits;
  limits.max_concurrent_turns = 1;
  limits.max_queue_length = 1;
  RunnerHarness h(limits, kSlowTimers);
  h.runner->open();
  h.runner->submit(prompt_of("m1"));
  h.runner->submit(prompt_of("m2"));
  h.runner->submit(prompt_of("m3"));
  REQUIRE(h.answers.size() == 1);
  CHECK(h.answers[0].prompt.message_id == "m3");
  CHECK(h.answers[0].reaction == sdk::Reaction::refused);
  CHECK(h.answers[0].sentence == errand::sessions::full_queue_sentence(1));
  CHECK(h.answers[0].mention_user_id == "owner");
  CHECK(h.ended == std::vector<std::pair<std::string, TurnOutcome>>{{"m3", TurnOutcome::rejected}});
}

TEST_CASE("a prompt that waits too long expires: its queued mark comes off and it is answered") {
  QueueLimits limits;
  limits.max_concurrent_turns = 1;
  limits.max_queue_wait = 1000ms;
  RunnerHarness h(limits, kSlowTimers);
  h.runner->open();
  h.runner->submit(prompt_of("m1"));
  h.runner->submit(prompt_of("m2"));
  h.queue.clock.advance(1001ms);
  h.queue.queue.sweep();
  h.queue.settle();
  REQUIRE(h.answers.size() == 1);
  CHECK(h.answers[0].prompt.message_id == "m2");
  CHECK(h.answers[0].reaction == sdk::Reaction::expired);
  CHECK(h.answers[0].sentence == errand::sessions::expired_sentence(1000ms));
  CHECK(h.runner->queued() == 0);
  REQUIRE(h.reactions.size() == 2);
  CHECK(h.reactions[1].message_id == "m2");
  CHECK(h.reactions[1].reaction == sdk::Reaction::queued);
  CHECK_FALSE(h.reactions[1].add);
  CHECK(h.ended == std::vector<std::pair<std::string, TurnOutcome>>{{"m2", TurnOutcome::expired}});
}

TEST_CASE("closing drops every waiting prompt as stopped and begins nothing after") {
  RunnerHarness h({}, kSlowTimers);
  h.runner->hold(prompt_of("early"));
  h.runner->open();
  h.runner->submit(prompt_of("m2"));
  h.runner->submit(prompt_of("m3"));
  h.queue.settle();
  REQUIRE(h.ran == std::vector<std::string>{"early"});
  h.reactions.clear();

  CHECK(h.runner->close() == 2);
  CHECK(h.runner->queued() == 0);
  CHECK(h.ended == std::vector<std::pair<std::string, TurnOutcome>>{
                       {"m2", TurnOutcome::cancelled}, {"m3", TurnOutcome::cancelled}});
  REQUIRE(h.reactions.size() == 4);
  CHECK(h.reactions[1].reaction == sdk::Reaction::stopped);
  CHECK(h.reactions[1].add);

  // The running turn ends and gives its slot back; a late admission begins nothing.
  h.runner->finish();
  CHECK(h.queue.in_flight() == 0);
  h.ended.clear();
  h.runner->submit(prompt_of("late"));
  CHECK(h.ran == std::vector<std::string>{"early"});
  CHECK(h.ended ==
        std::vector<std::pair<std::string, TurnOutcome>>{{"late", TurnOutcome::cancelled}});
  CHECK(h.queue.in_flight() == 0);
}

TEST_CASE("held prompts of a session that could not start are marked failed") {
  RunnerHarness h({}, kSlowTimers);
  h.runner->hold(prompt_of("m1"));
  h.runner->fail_held();
  CHECK(h.runner->held() == 0);
  REQUIRE(h.reactions.size() == 1);
  CHECK(h.reactions[0].reaction == sdk::Reaction::failed);
  CHECK(h.ended == std::vector<std::pair<std::string, TurnOutcome>>{{"m1", TurnOutcome::failed}});
}

TEST_CASE("the idle timer stops an open session nobody writes to, and a prompt restarts it") {
  RunnerHarness h({}, {150ms, 10min});
  h.runner->open();
  h.runner->submit(prompt_of("m1"));
  // While a turn runs the session is not idle, however long the turn takes.
  h.run_for(400ms);
  CHECK(h.idle_stops == 0);
  // Read before finish(), which arms the timer from its own reading of the clock: read after,
  // the bound below could miss by the time finish() took.
  const auto finished_at = std::chrono::steady_clock::now();
  h.runner->finish();
  h.run_until([&] { return h.idle_stops > 0; });
  CHECK(h.idle_stops == 1);
  CHECK(std::chrono::steady_clock::now() - finished_at >= 150ms);
}

TEST_CASE("a closed session's idle timer never fires") {
  RunnerHarness h({}, {50ms, 10min});
  h.runner->open();
  h.runner->close();
  h.run_for(300ms);
  CHECK(h.idle_stops == 0);
}

TEST_CASE("an interrupt the agent ignores stops the session after the abort timeout") {
  RunnerHarness h({}, {10min, 100ms});
  h.runner->open();
  h.runner->submit(prompt_of("m1"));
  h.runner->interrupted();
  h.run_until([&] { return h.stuck_stops > 0; });
  CHECK(h.stuck_stops == 1);
}

TEST_CASE("an interrupt the agent honours in time stops nothing") {
  RunnerHarness h({}, {10min, 100ms});
  h.runner->open();
  h.runner->submit(prompt_of("m1"));
  h.runner->interrupted();
  h.runner->agent_done();
  h.runner->finish();
  h.run_for(400ms);
  CHECK(h.stuck_stops == 0);
}

TEST_CASE("a runner destroyed with a prompt queued ignores the queue's later callbacks") {
  QueueLimits limits;
  limits.max_concurrent_turns = 1;
  RunnerHarness h(limits, kSlowTimers);
  // Another session holds the only slot.
  REQUIRE(errand::test::is_admitted(h.queue.submit("session-2", "other")));
  h.runner->open();
  h.runner->submit(prompt_of("m1"));
  h.runner.reset();
  h.queue.release("other");
  CHECK(h.ran.empty());
  // The slot the queue gave the gone runner's prompt came straight back.
  CHECK(h.queue.in_flight() == 0);
}
