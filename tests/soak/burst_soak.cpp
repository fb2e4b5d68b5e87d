// burst: many people post at once, in the channel and in running threads, faster than turns can
// run. The provider's calls in flight are counted where they arrive (the fake provider, which
// answers 429 past the account's concurrency like a real one), Discord's 429s where the fake
// Discord keeps its limits, and every message must end answered in its thread or refused with a
// sentence, with the turn queue never longer than limits.maxQueueLength.
//
// How long settling may take is not a fixed window: on a loaded machine the same work takes
// longer. The test watches every message (burst_fate.hpp) until each is final, for as long as
// the daemon keeps moving, within a generous cap; a message still waiting in the queue with its
// place told is slow, not lost, and one that nothing shows was heard is reported as silent with
// where it was last seen.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/soak/burst_fate.hpp"
#include "tests/soak/soak_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using soak::BurstMessage;
using soak::BurstWatch;
using soak::Fate;

constexpr std::string_view kScenario = "burst";

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
// How often the burst is looked at while it settles, and how often progress is printed.
constexpr auto kLookEvery = 1s;
constexpr auto kProgressEvery = 10s;
// Settling waits while the daemon does anything visible (a request to Discord, a turn admitted
// or ended); this long with nothing at all while messages are not final, it has stopped.
constexpr auto kStall = 60s;

struct BurstSize {
  int messages;
  int accounts;
  int threads;
  std::size_t max_queue_length;
  std::chrono::milliseconds spread;  // the burst is posted evenly over this long
  // The most settling may take after the burst, however busy the daemon stays: far more than a
  // run needs (about 40 s short and 80 s full on a shared 2-core machine), and short enough
  // that the test reports its own findings within CTest's timeout.
  std::chrono::milliseconds settle_cap;
};

BurstSize burst_size() {
  return BurstSize{soak::sized(60, 500),
                   soak::sized(5, 20),
                   soak::sized(3, 10),
                   static_cast<std::size_t>(soak::sized(8, 24)),
                   10s,
                   soak::sized(std::chrono::milliseconds(300s), std::chrono::milliseconds(1800s))};
}

std::string account(int index) {
  return std::to_string(510000000000000000ULL + static_cast<unsigned long long>(index));
}

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

// The most prompts that waited in the queue at once, by the queue's own account: its lines, written
// under its lock in the order things happened, name each prompt that starts waiting and each that
// leaves (for a turn slot, by expiry, with its stopped session, or withdrawn). threads.db's stamps
// cannot say it: a prompt is stamped received before it reaches the queue and admitted once its
// session has taken the slot, so spans made of them overlap more than the queue ever held.
std::size_t most_waiting_at_once(const std::string& daemon_log) {
  constexpr auto npos = std::string::npos;
  std::istringstream lines(daemon_log);
  std::string line;
  std::size_t waiting = 0, most = 0;
  while (std::getline(lines, line)) {
    if (line.find("[queue]") == npos) continue;
    if (line.find("waits for a turn slot at position") != npos) {
      most = std::max(most, ++waiting);
    } else if (line.find("got a turn slot after waiting") != npos ||
               line.find("expired after waiting") != npos || line.find("left the queue:") != npos) {
      if (waiting > 0) --waiting;
    }
  }
  return most;
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

struct Settling {
  bool settled = false;  // every message final
  bool stalled = false;  // the daemon did nothing visible for kStall with messages not final
};

// Waits until every message of the burst is final, for as long as the daemon keeps moving and at
// most `cap` after the burst began, printing progress as it goes.
Settling settle(BurstWatch& watch, Clock::time_point burst_start, std::chrono::milliseconds cap) {
  auto moved_at = Clock::now();
  auto activity = watch.activity();
  auto next_report = Clock::now() + kProgressEvery;
  for (;;) {
    watch.look();
    const auto now = Clock::now();
    if (watch.all_final()) return {true, false};
    if (watch.activity() != activity) {
      activity = watch.activity();
      moved_at = now;
    }
    if (now - moved_at >= kStall) return {false, true};
    if (now - burst_start >= cap) return {false, false};
    if (now >= next_report) {
      fmt::print("soak {}: +{:.0f} s: {}\n", kScenario,
                 std::chrono::duration<double>(now - burst_start).count(), watch.summary());
      std::fflush(stdout);
      next_report += kProgressEvery;
    }
    std::this_thread::sleep_for(kLookEvery);
  }
}

// What the daemon itself says of its sessions and queue, asked with !status in the served
// channel and in every thread holding a message that is not final.
std::string daemon_status(E2eHarness& h, const BurstWatch& watch) {
  std::vector<std::pair<std::string, std::string>> asks;  // channel, author
  const auto& served = h.discord().options().channel_id;
  asks.emplace_back(served, account(0));
  for (std::size_t i = 0; i < watch.messages().size(); ++i) {
    const auto& m = watch.messages()[i];
    if (soak::is_final(watch.fate(i))) continue;
    // A silent channel message may have no thread to ask in; the channel's answer covers it.
    if (m.in_channel && watch.fate(i) == Fate::silent) continue;
    const auto where = m.in_channel ? m.id : m.channel;
    if (std::none_of(asks.begin(), asks.end(), [&](const auto& a) { return a.first == where; }))
      asks.emplace_back(where, m.author);
  }
  std::string said;
  for (const auto& [channel, author] : asks) {
    const auto before = h.bot_messages(channel).size();
    h.post("!status", channel == served ? std::string() : channel, author);
    const bool answered = eventually([&] { return h.bot_messages(channel).size() > before; }, 30s);
    said += fmt::format("!status in {}: ", channel == served ? "the served channel" : channel);
    if (!answered) {
      said += "no answer within 30 s\n";
      continue;
    }
    const auto posts = h.bot_messages(channel);
    for (auto k = before; k < posts.size(); ++k) said += posts[k].content + "\n";
  }
  return said;
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

  std::vector<BurstMessage> posted;
  const auto burst_start = Clock::now();
  int next_thread = 0;
  for (int k = 0; k < size.messages; ++k) {
    std::this_thread::sleep_until(burst_start + size.spread * k / size.messages);
    BurstMessage p;
    p.index = k;
    p.in_channel = k % kChannelEvery == kChannelEvery - 1;
    p.author = account(k % size.accounts);
    const std::string thread =
        p.in_channel ? std::string()
                     : threads[static_cast<std::size_t>(next_thread++) % threads.size()];
    p.id = h.post(fmt::format("say answer to m{}.\nprovider burst m{}", k, k), thread, p.author);
    p.channel = p.in_channel ? h.discord().options().channel_id : thread;
    posted.push_back(std::move(p));
  }
  const auto posting_took = Clock::now() - burst_start;

  BurstWatch watch(h, posted, burst_start);
  const auto settling = settle(watch, burst_start, size.settle_cap);
  const auto settle_took = Clock::now() - burst_start;
  // Every message not final, with where it was last seen, and what the daemon says of its
  // queue: the evidence for telling a slow message from a lost one.
  std::string unsettled;
  if (!watch.all_final()) {
    for (std::size_t i = 0; i < posted.size(); ++i)
      if (!soak::is_final(watch.fate(i))) unsettled += watch.last_seen(i);
    unsettled += daemon_status(h, watch);
  }
  const auto count = [&](Fate f) { return watch.count(f); };
  const std::size_t queue_full_sentences = watch.sentences(soak::kQueueFull);
  const std::size_t session_sentences = watch.sentences(soak::kSessionsFull);

  // How many of the burst's prompts waited for a turn at once (the queue's own lines), and how
  // many turns ran at once (threads.db).
  std::vector<std::pair<sessions::TimePoint, sessions::TimePoint>> running;
  for (const auto& p : posted) {
    const auto turn = h.turn(p.id);
    if (!turn || p.in_channel) continue;  // a new session's start is not a turn in the queue
    if (turn->admitted_at && turn->ended_at)
      running.emplace_back(*turn->admitted_at, *turn->ended_at);
  }
  const auto waited_at_once = most_waiting_at_once(h.daemon_log());
  const auto ran_at_once = most_at_once(running);
  const auto announced_position = largest_queue_position(h.discord());

  const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  soak::report(kScenario, "messages posted", static_cast<double>(posted.size()));
  soak::report(kScenario, "accounts / threads",
               fmt::format("{} / {} (+ the channel)", size.accounts, size.threads));
  soak::report(kScenario, "posting took (s)", seconds(posting_took));
  soak::report(kScenario, settling.settled ? "all settled after (s)" : "gave up waiting after (s)",
               seconds(settle_took));
  soak::report(kScenario, "answered", static_cast<double>(count(Fate::answered)));
  soak::report(kScenario, "refused with a sentence (queue full / no live-session place)",
               fmt::format("{} ({} / {} sentences)", count(Fate::refused), queue_full_sentences,
                           session_sentences));
  soak::report(kScenario, "ended otherwise", static_cast<double>(count(Fate::failed)));
  soak::report(kScenario, "not final: queued with its place told / in a turn / starting",
               fmt::format("{} / {} / {}", count(Fate::queued), count(Fate::in_turn),
                           count(Fate::starting)));
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
  soak::report(kScenario, "queue: prompts waiting at once (the queue's lines)",
               static_cast<double>(waited_at_once));
  soak::report(kScenario, "turns running at once (threads.db)",
               fmt::format("{} (maxConcurrentTurns {})", ran_at_once, kMaxConcurrentTurns));

  INFO("daemon log tail:\n"
       << h.daemon_log().substr(h.daemon_log().size() > 4000 ? h.daemon_log().size() - 4000 : 0));
  INFO("messages not final when the wait ended:\n" << unsettled);
  // A silent message is one nothing shows was heard: lost, whatever the machine's load.
  CHECK(count(Fate::silent) == 0);
  // The rest are slow, or the daemon stopped moving with them still waiting.
  INFO("settling: " << (settling.settled   ? "every message final"
                        : settling.stalled ? "the daemon did nothing visible for a minute"
                                           : "the cap passed while the daemon still worked"));
  CHECK(settling.settled);
  CHECK(count(Fate::failed) == 0);
  CHECK(count(Fate::answered) + count(Fate::refused) == posted.size());
  // Each refusal is a sentence the person sees (judged per channel in burst_fate.cpp).
  CHECK(queue_full_sentences + session_sentences >= count(Fate::refused));
  CHECK(count(Fate::answered) > 0);
  CHECK(h.provider().max_in_flight() <= kMaxConcurrentRequests);
  CHECK(h.provider().max_in_flight() >= 2);  // the burst did press on the bound
  CHECK(h.provider().rate_limited_answers() == 0);
  CHECK(h.discord().rate_limited_responses() == 0);
  CHECK(announced_position <= size.max_queue_length);
  CHECK(waited_at_once <= size.max_queue_length);
  // A prompt told it is at position N waited with N - 1 before it, so the queue's lines must
  // account for at least that many at once.
  CHECK(waited_at_once >= announced_position);
  CHECK(ran_at_once <= kMaxConcurrentTurns);
}

}  // namespace
}  // namespace errand::e2e
