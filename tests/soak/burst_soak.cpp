// burst: many people post at once, in the channel and in running threads, faster than turns can
// run. The provider's calls in flight are counted where they arrive (the fake provider, which
// answers 429 past the account's concurrency like a real one), Discord's 429s where the fake
// Discord keeps its limits, and every message must end answered in its thread or refused with a
// sentence, with the turn queue never longer than limits.maxQueueLength.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/soak/soak_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <map>
#include <regex>
#include <thread>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using sessions::TurnOutcome;
using sessions::TurnRecord;

constexpr std::string_view kScenario = "burst";
constexpr auto npos = std::string::npos;

// Small bounds, so the burst runs into each of them.
constexpr std::size_t kMaxConcurrentRequests = 2;
constexpr std::size_t kMaxConcurrentTurns = 4;
// Each provider call takes at least this long, so turns overlap and wait on the broker's bound.
// Two calls of a second each at once answer 2 prompts a second, well below the burst's rate, so
// the queue fills and its bound is reached.
constexpr auto kCallStall = 1000ms;
// One message in this many goes to the channel (each asks for a new session); the rest go to
// the running threads, round robin.
constexpr int kChannelEvery = 10;
constexpr auto kPassingThrough = 100ms;

struct BurstSize {
  int messages;
  int accounts;
  int threads;
  std::size_t max_queue_length;
  std::chrono::milliseconds spread;  // the burst is posted evenly over this long
  std::chrono::milliseconds settle;  // how long every message has to be answered or refused
};

BurstSize burst_size() {
  return BurstSize{soak::sized(60, 500),
                   soak::sized(5, 20),
                   soak::sized(3, 10),
                   static_cast<std::size_t>(soak::sized(8, 24)),
                   10s,
                   soak::sized(std::chrono::milliseconds(90s), std::chrono::milliseconds(900s))};
}

std::string account(int index) {
  return std::to_string(510000000000000000ULL + static_cast<unsigned long long>(index));
}

struct Posted {
  int index = 0;
  std::string id;
  std::string channel;  // the thread it went to, or the served channel
  bool in_channel = false;
};

enum class Fate { answered, refused_queue_full, refused_sessions, refused_other, silent };

// The sentences the daemon refuses a prompt with (core/sessions/queue.cpp).
constexpr std::string_view kQueueFull = "the queue is full at ";
constexpr std::string_view kSessionsFull = "live-session places are in use";

// The largest position the daemon announced for a waiting prompt, in every message it posted or
// edited (a waiting notice is edited away once the turn starts, so the final text may not hold it).
std::size_t largest_queue_position(const fake_discord::FakeDiscord& discord) {
  static const std::regex position("position ([0-9]+) in the queue");
  std::size_t largest = 0;
  for (const auto& request : discord.requests()) {
    if (!request.json.is_object()) continue;
    const auto* content = request.json.as_object().if_contains("content");
    if (content == nullptr || !content->is_string()) continue;
    const std::string text(content->as_string());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), position);
         it != std::sregex_iterator(); ++it)
      largest = std::max<std::size_t>(largest, std::stoul((*it)[1].str()));
  }
  return largest;
}

// The most intervals [from, to) open at one moment.
std::size_t most_at_once(std::vector<std::pair<sessions::TimePoint, sessions::TimePoint>> spans) {
  std::vector<std::pair<sessions::TimePoint, int>> edges;
  for (const auto& [from, to] : spans) {
    if (to <= from) continue;
    edges.emplace_back(from, +1);
    edges.emplace_back(to, -1);
  }
  // At one instant an end comes before a start: [a, b) and [b, c) never overlap.
  std::sort(edges.begin(), edges.end());
  std::size_t open = 0, most = 0;
  for (const auto& [at, step] : edges) {
    open = static_cast<std::size_t>(static_cast<long>(open) + step);
    most = std::max(most, open);
  }
  return most;
}

TEST_CASE("burst: every message answered or refused, within the provider's and Discord's limits",
          "[soak][burst]") {
  const auto size = burst_size();
  E2eHarness h;
  boost::json::array allowed;
  for (int i = 0; i < size.accounts; ++i) allowed.emplace_back(account(i));
  h.set("chat.allowedUserIds", allowed);
  h.set("agent.providers.anthropic.maxConcurrentRequests", kMaxConcurrentRequests);
  h.set("limits.maxConcurrentTurns", kMaxConcurrentTurns);
  h.set("limits.maxQueueLength", size.max_queue_length);
  // Room for the running threads and a few of the channel's new sessions; the rest are refused.
  h.set("limits.maxLiveSessions", size.threads + 2);
  h.start();
  // Like a real account: a call past maxConcurrentRequests would be answered 429.
  h.provider().limit_concurrency(kMaxConcurrentRequests);

  std::vector<std::string> threads;
  for (int t = 0; t < size.threads; ++t)
    threads.push_back(h.post(fmt::format("say thread {} is open", t), {}, account(t)));
  for (const auto& thread : threads) REQUIRE(h.wait_for_text(thread, "done in", 60s));

  for (int k = 0; k < size.messages; ++k)
    h.provider().push(fakes::ScriptedAnswer::stalled_for(kCallStall, "the model's answer"));

  std::vector<Posted> posted;
  const auto burst_start = Clock::now();
  int next_thread = 0;
  for (int k = 0; k < size.messages; ++k) {
    std::this_thread::sleep_until(burst_start + size.spread * k / size.messages);
    Posted p;
    p.index = k;
    p.in_channel = k % kChannelEvery == kChannelEvery - 1;
    const std::string thread =
        p.in_channel ? std::string()
                     : threads[static_cast<std::size_t>(next_thread++) % threads.size()];
    p.id = h.post(fmt::format("say answer to m{}.\nprovider burst m{}", k, k), thread,
                  account(k % size.accounts));
    p.channel = p.in_channel ? h.discord().options().channel_id : thread;
    posted.push_back(std::move(p));
  }
  const auto posting_took = Clock::now() - burst_start;

  // A message in the channel opens a thread of its own (with the message's id), where its
  // answer goes; a refusal goes where the message was.
  std::vector<std::string> watched = threads;
  watched.push_back(h.discord().options().channel_id);
  const auto fate_of = [&](const Posted& p) {
    const auto turn = h.turn(p.id);
    const std::string answer = fmt::format("answer to m{}.", p.index);
    if (turn && turn->outcome == TurnOutcome::completed &&
        h.bot_text(p.in_channel ? p.id : p.channel).find(answer) != npos)
      return Fate::answered;
    // A message in the channel that would need a new session is refused for want of a place;
    // a prompt for a running session, when the queue is full.
    if (turn && turn->outcome == TurnOutcome::rejected)
      return p.in_channel ? Fate::refused_sessions : Fate::refused_queue_full;
    if (turn && turn->outcome && *turn->outcome != TurnOutcome::completed)
      return Fate::refused_other;
    return Fate::silent;
  };
  const auto count_sentences = [&](std::string_view sentence) {
    std::size_t n = 0;
    for (const auto& channel : watched) n += h.count_text(channel, std::string(sentence));
    return n;
  };
  std::vector<Fate> fates(posted.size(), Fate::silent);
  const auto count = [&](Fate f) {
    return static_cast<std::size_t>(std::count(fates.begin(), fates.end(), f));
  };
  // Settled once every message has its fate and every refusal its sentence on Discord.
  const bool settled = eventually(
      [&] {
        for (std::size_t i = 0; i < posted.size(); ++i)
          if (fates[i] == Fate::silent) fates[i] = fate_of(posted[i]);
        return count(Fate::silent) == 0 &&
               count_sentences(kQueueFull) >= count(Fate::refused_queue_full) &&
               count_sentences(kSessionsFull) >= count(Fate::refused_sessions);
      },
      size.settle);
  const auto settle_took = Clock::now() - burst_start;

  const std::size_t queue_full_sentences = count_sentences(kQueueFull);
  const std::size_t session_sentences = count_sentences(kSessionsFull);

  // From threads.db: how many of the burst's prompts waited for a turn at once, and how many
  // turns ran at once.
  std::vector<std::pair<sessions::TimePoint, sessions::TimePoint>> waiting, running;
  for (const auto& p : posted) {
    const auto turn = h.turn(p.id);
    if (!turn || p.in_channel) continue;  // a new session's start is not a wait in the queue
    // A prompt admitted as it arrived spends a moment between the two stamps; only a longer
    // wait is one in the queue.
    if (turn->admitted_at && *turn->admitted_at - turn->received_at > kPassingThrough)
      waiting.emplace_back(turn->received_at, *turn->admitted_at);
    if (turn->admitted_at && turn->ended_at)
      running.emplace_back(*turn->admitted_at, *turn->ended_at);
  }
  const auto waited_at_once = most_at_once(waiting);
  const auto ran_at_once = most_at_once(running);
  const auto announced_position = largest_queue_position(h.discord());

  const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  soak::report(kScenario, "messages posted", static_cast<double>(posted.size()));
  soak::report(kScenario, "accounts / threads",
               fmt::format("{} / {} (+ the channel)", size.accounts, size.threads));
  soak::report(kScenario, "posting took (s)", seconds(posting_took));
  soak::report(kScenario, "all settled after (s)", seconds(settle_took));
  soak::report(kScenario, "answered", static_cast<double>(count(Fate::answered)));
  soak::report(
      kScenario, "refused: queue full",
      fmt::format("{} ({} sentences)", count(Fate::refused_queue_full), queue_full_sentences));
  soak::report(kScenario, "refused: no live-session place",
               fmt::format("{} ({} sentences)", count(Fate::refused_sessions), session_sentences));
  soak::report(kScenario, "ended otherwise", static_cast<double>(count(Fate::refused_other)));
  soak::report(kScenario, "silent", static_cast<double>(count(Fate::silent)));
  soak::report(kScenario, "provider requests in flight, max observed",
               fmt::format("{} (maxConcurrentRequests {})", h.provider().max_in_flight(),
                           kMaxConcurrentRequests));
  soak::report(kScenario, "provider requests", static_cast<double>(h.provider().requests().size()));
  soak::report(kScenario, "upstream 429s",
               static_cast<double>(h.provider().rate_limited_answers()));
  soak::report(kScenario, "Discord 429s",
               static_cast<double>(h.discord().rate_limited_responses()));
  soak::report(kScenario, "Discord REST requests",
               static_cast<double>(h.discord().requests().size()));
  {
    // The bot's posts, which Discord allows 5 per 5 s in each channel: what bounds the settling.
    std::map<std::string, std::size_t> posts;
    for (const auto& r : h.discord().requests())
      if (r.method == "POST" && r.path.starts_with("/api/v10/channels/") &&
          r.path.ends_with("/messages") && r.status == 200)
        ++posts[r.path];
    std::size_t total = 0, most = 0;
    for (const auto& [path, n] : posts) {
      total += n;
      most = std::max(most, n);
    }
    soak::report(kScenario, "bot messages posted (most in one channel)",
                 fmt::format("{} ({})", total, most));
  }
  soak::report(kScenario, "queue: largest position announced",
               fmt::format("{} (maxQueueLength {})", announced_position, size.max_queue_length));
  soak::report(kScenario, "queue: prompts waiting at once (threads.db)",
               static_cast<double>(waited_at_once));
  soak::report(kScenario, "turns running at once (threads.db)",
               fmt::format("{} (maxConcurrentTurns {})", ran_at_once, kMaxConcurrentTurns));

  INFO("daemon log tail:\n"
       << h.daemon_log().substr(h.daemon_log().size() > 4000 ? h.daemon_log().size() - 4000 : 0));
  CHECK(settled);
  CHECK(count(Fate::silent) == 0);
  CHECK(count(Fate::refused_other) == 0);
  CHECK(count(Fate::answered) + count(Fate::refused_queue_full) + count(Fate::refused_sessions) ==
        posted.size());
  // Each refusal is a sentence the person sees.
  CHECK(queue_full_sentences >= count(Fate::refused_queue_full));
  CHECK(session_sentences >= count(Fate::refused_sessions));
  CHECK(count(Fate::answered) > 0);
  CHECK(h.provider().max_in_flight() <= kMaxConcurrentRequests);
  CHECK(h.provider().max_in_flight() >= 2);  // the burst did press on the bound
  CHECK(h.provider().rate_limited_answers() == 0);
  CHECK(h.discord().rate_limited_responses() == 0);
  CHECK(announced_position <= size.max_queue_length);
  CHECK(waited_at_once <= size.max_queue_length);
  CHECK(ran_at_once <= kMaxConcurrentTurns);
}

}  // namespace
}  // namespace errand::e2e
