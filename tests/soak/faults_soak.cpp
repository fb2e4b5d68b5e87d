// faults: one thread lives through each fault a provider and Discord can throw at the daemon, in
// turn: a provider stream that stalls, one reset mid-answer, a 5xx, a 429 with retry-after; a
// dropped gateway (resumed), Discord's REST answering 5xx for a while, and an invalidated
// gateway session (op 9). After each, the prompt of the fault is answered or the thread holds one
// clear sentence about it, the next prompt is answered, nothing the bot posts goes missing or
// arrives twice, and the account stays far from Discord's invalid-request ban.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/soak/soak_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <functional>
#include <thread>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kScenario = "faults";
// The fake agent's one sentence for a model call that did not come back whole.
constexpr std::string_view kCallFailed = "provider call failed";
constexpr std::string_view kTurnDone = "done in ";
// Discord bans an address past 10,000 invalid requests (401, 403, 429) in 10 minutes.
constexpr std::size_t kDiscordInvalidBudget = 10000;

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::size_t client_ops(const fake_discord::FakeDiscord& discord, std::int64_t op) {
  std::size_t n = 0;
  for (const auto& frame : discord.gateway_frames()) {
    const auto* code = frame.payload.if_contains("op");
    if (frame.from_client && code != nullptr && code->is_int64() && code->as_int64() == op) ++n;
  }
  return n;
}

// Discord's REST answers the daemon got, by status class.
struct RestAnswers {
  std::size_t invalid = 0;  // 401, 403, 429: what Discord's ban counts
  std::size_t server_errors = 0;
};

RestAnswers rest_answers(const fake_discord::FakeDiscord& discord) {
  RestAnswers a;
  for (const auto& r : discord.requests()) {
    if (r.status == 401 || r.status == 403 || r.status == 429) ++a.invalid;
    if (r.status >= 500) ++a.server_errors;
  }
  return a;
}

class FaultRun {
 public:
  FaultRun(E2eHarness& h, std::string thread) : h_(h), thread_(std::move(thread)) {}

  struct Step {
    std::string fault;
    std::string prompt_tag;         // the words the fault's prompt says, once answered
    bool expect_notice;             // the fault costs the prompt its answer: one sentence says so
    std::size_t notices = 0;        // "provider call failed" sentences this fault added
    std::size_t answers = 0;        // copies of the prompt's answer in the thread
    std::size_t after_answers = 0;  // copies of the answer of the prompt sent after the fault
    std::size_t provider_requests = 0;
    Clock::duration took{};
  };

  // Posts the fault's prompt (inject runs first, or right after posting when after_post), waits
  // for its turn to end, then posts a plain prompt and waits for its answer.
  Step run(std::string fault, bool expect_notice, const std::function<void()>& inject,
           bool after_post = false, std::string script = {}) {
    Step step;
    step.fault = std::move(fault);
    step.expect_notice = expect_notice;
    step.prompt_tag = fmt::format("fault prompt {}.", ++count_);
    const auto done_before = h_.count_text(thread_, std::string(kTurnDone));
    const auto notices_before = h_.count_text(thread_, std::string(kCallFailed));
    const auto requests_before = h_.provider().requests().size();
    const auto start = Clock::now();
    if (!after_post) inject();
    h_.post(fmt::format("say {}\n{}", step.prompt_tag,
                        script.empty() ? "provider through the fault" : script),
            thread_);
    if (after_post) inject();
    const bool ended = h_.wait_for_text(thread_, std::string(kTurnDone), 120s, done_before + 1);
    INFO(step.fault << ": the thread\n" << h_.bot_text(thread_));
    REQUIRE(ended);
    const std::string after_tag = fmt::format("after fault {}.", count_);
    h_.post(fmt::format("say {}\nprovider after the fault", after_tag), thread_);
    REQUIRE(h_.wait_for_text(thread_, std::string(kTurnDone), 120s, done_before + 2));
    step.took = Clock::now() - start;
    step.notices = h_.count_text(thread_, std::string(kCallFailed)) - notices_before;
    step.answers = h_.count_text(thread_, step.prompt_tag);
    step.after_answers = h_.count_text(thread_, after_tag);
    step.provider_requests = h_.provider().requests().size() - requests_before;
    return step;
  }

 private:
  E2eHarness& h_;
  std::string thread_;
  int count_ = 0;
};

TEST_CASE("faults: each provider and Discord fault loses nothing and is told once",
          "[soak][faults]") {
  // The full run goes through every fault more times and holds each longer.
  const int rounds = soak::sized(1, 3);
  const auto stall = soak::sized(std::chrono::milliseconds(3s), std::chrono::milliseconds(20s));
  const int retry_after = soak::sized(2, 5);
  const int rest_failures = 3;
  E2eHarness h;
  h.start();
  const auto run_start = Clock::now();
  const auto thread = h.post("say the faults thread is open");
  REQUIRE(h.wait_for_text(thread, std::string(kTurnDone), 60s));
  FaultRun run(h, thread);
  std::vector<FaultRun::Step> steps;
  std::vector<double> held_after_429;
  std::size_t resumes = 0;
  std::size_t rest_503s = 0;
  std::string gaps;
  Clock::duration shortest_gap = Clock::duration::max();

  for (int round = 1; round <= rounds; ++round) {
    // The provider goes silent mid-answer, then finishes: the answer arrives once it does.
    steps.push_back(run.run("provider stall", false, [&] {
      h.provider().push(fakes::ScriptedAnswer::stalled_for(stall, "late but whole"));
    }));
    CHECK(h.count_text(thread, "late but whole") == static_cast<std::size_t>(round));

    // The connection is reset after a few events of the answer.
    steps.push_back(run.run("provider reset mid-stream", true, [&] {
      h.provider().push(fakes::ScriptedAnswer::reset_midway("half an answer that never ends"));
    }));

    // A 5xx: relayed as it came, not retried in a loop by the broker.
    steps.push_back(run.run("provider 503", true, [&] {
      h.provider().push(fakes::ScriptedAnswer::failure(503, "the fake provider is overloaded"));
    }));

    // A 429 with retry-after: the provider is paused for every session until it has passed,
    // so the next prompt is held, not sent into the limit.
    steps.push_back(
        run.run("provider 429, retry-after " + std::to_string(retry_after) + " s", true,
                [&] { h.provider().push(fakes::ScriptedAnswer::rate_limited(retry_after)); }));
    {
      const auto turns = h.threads_db()->turns_of_session(h.sessions_of(thread).back().session_id);
      REQUIRE(turns.has_value());
      // The last two turns: the 429's and the one posted right after it.
      REQUIRE(turns->size() >= 2);
      const auto& limited = (*turns)[turns->size() - 2];
      const auto& next = (*turns)[turns->size() - 1];
      REQUIRE(limited.ended_at);
      REQUIRE(next.admitted_at);
      held_after_429.push_back(
          std::chrono::duration<double>(*next.admitted_at - *limited.ended_at).count());
    }

    // The gateway's TCP connection drops with no close frame; the prompt is posted while the
    // daemon is away, and reaches it through the resume's replay.
    const auto resumes_before = client_ops(h.discord(), 6);
    steps.push_back(run.run("Discord gateway dropped", false, [&] { h.discord().drop_gateway(); }));
    resumes += client_ops(h.discord(), 6) - resumes_before;

    // Discord's REST answers 5xx to the bot's next posts in the thread, then recovers.
    const auto rest_before = h.discord().requests().size();
    steps.push_back(run.run("Discord REST 503 x" + std::to_string(rest_failures), false, [&] {
      h.discord().inject_server_error(
          {"POST", "/channels/" + thread + "/messages", 503, rest_failures});
    }));
    // The attempts at the failing route: 503s, then the one that went through, spaced by
    // backoff.
    std::vector<Clock::time_point> attempts;
    std::size_t failed = 0;
    {
      const auto all = h.discord().requests();
      const std::string route = "/api/v10/channels/" + thread + "/messages";
      for (std::size_t i = rest_before; i < all.size(); ++i) {
        if (all[i].method != "POST" || all[i].path != route) continue;
        if (all[i].status == 503) {
          ++failed;
          attempts.push_back(all[i].at);
        } else if (failed == static_cast<std::size_t>(rest_failures) && attempts.size() == failed) {
          attempts.push_back(all[i].at);
        }
      }
    }
    CHECK(failed == static_cast<std::size_t>(rest_failures));
    CHECK(attempts.size() == static_cast<std::size_t>(rest_failures) + 1);
    rest_503s += failed;
    gaps += gaps.empty() ? "" : "; ";
    for (std::size_t i = 1; i < attempts.size(); ++i) {
      const auto gap = attempts[i] - attempts[i - 1];
      shortest_gap = std::min(shortest_gap, gap);
      gaps += fmt::format("{}{:.2f}", i == 1 ? "" : ", ", seconds(gap));
    }

    // Op 9, not resumable: the daemon identifies afresh; events in between are gone on
    // Discord too, so the prompt is posted once the new session is ready.
    const auto identifies_before = client_ops(h.discord(), 2);
    steps.push_back(run.run("Discord session invalidated (op 9)", false, [&] {
      h.discord().invalidate_session(false);
      REQUIRE(eventually([&] { return client_ops(h.discord(), 2) > identifies_before; }, 60s));
      std::this_thread::sleep_for(500ms);  // READY reaches the daemon before the next event
    }));
  }

  const auto rest = rest_answers(h.discord());
  const auto run_took = Clock::now() - run_start;

  // One line a fault, over its rounds.
  const std::size_t per_round = steps.size() / static_cast<std::size_t>(rounds);
  for (std::size_t kind = 0; kind < per_round; ++kind) {
    std::string line;
    for (std::size_t i = kind; i < steps.size(); i += per_round) {
      const auto& s = steps[i];
      line += fmt::format(
          "{}answered {}x, told {}x, next answered {}x, {} provider requests, "
          "{:.1f} s",
          line.empty() ? "" : "; ", s.answers, s.notices, s.after_answers, s.provider_requests,
          seconds(s.took));
    }
    soak::report(kScenario, steps[kind].fault, line);
  }
  std::string held;
  for (const auto value : held_after_429)
    held += fmt::format("{}{:.2f}", held.empty() ? "" : ", ", value);
  soak::report(kScenario, "rounds of every fault", static_cast<double>(rounds));
  soak::report(kScenario, "held after each 429 (s)",
               fmt::format("{} (retry-after {})", held, retry_after));
  soak::report(kScenario, "gateway resumes", static_cast<double>(resumes));
  soak::report(kScenario, "REST 503s, then the gaps between attempts (s)",
               fmt::format("{} ({})", rest_503s, gaps));
  soak::report(kScenario, "Discord invalid requests (401/403/429)",
               fmt::format("{} (ban at {} in 10 min)", rest.invalid, kDiscordInvalidBudget));
  soak::report(kScenario, "Discord 5xx answered", static_cast<double>(rest.server_errors));
  soak::report(kScenario, "Discord REST requests",
               static_cast<double>(h.discord().requests().size()));
  soak::report(kScenario, "run took (s)", seconds(run_took));

  for (const auto& s : steps) {
    INFO(s.fault << "\nthe thread:\n" << h.bot_text(thread));
    // Nothing lost, nothing twice: the fault's prompt has its own words in the thread once, and
    // the prompt after the fault is answered once.
    CHECK(s.answers == 1);
    CHECK(s.after_answers == 1);
    // Told once where the fault cost the answer, not at all where it did not.
    CHECK(s.notices == (s.expect_notice ? 1U : 0U));
    // One call for the fault's prompt and one after it: no retry loop against the provider.
    CHECK(s.provider_requests == 2);
  }
  // The pause started at the 429, a moment before the turn ended, so allow a second of it.
  for (const auto value : held_after_429) CHECK(value >= retry_after - 1.0);
  CHECK(resumes >= static_cast<std::size_t>(rounds));
  // Backoff, not a hot loop: the daemon waits at least 0.5 s before each attempt again.
  CHECK(shortest_gap >= 400ms);
  CHECK(rest.invalid < kDiscordInvalidBudget / 100);
  CHECK(h.discord().rate_limited_responses() == 0);
}

}  // namespace
}  // namespace errand::e2e
