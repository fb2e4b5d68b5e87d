#include "session_round.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "bench_daemon.hpp"
#include "process_memory.hpp"

namespace errand::bench {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// The fake provider's default answer begins with this word, and nothing the daemon writes in
// a thread of its own accord does.
constexpr std::string_view kAgentText = "Hello";

// When the agent's text first reached each thread, fed by the fake's hook on its io thread.
class OutputClock {
 public:
  void expect(const std::string& thread, Clock::time_point posted) {
    const std::lock_guard lock(mutex_);
    waiting_[thread] = posted;
  }
  void on_bot_message(const fake_discord::StoredMessage& message) {
    if (message.content.find(kAgentText) == std::string::npos) return;
    const auto now = Clock::now();
    const std::lock_guard lock(mutex_);
    if (!answered_ids_.insert(message.id).second) return;  // an edit of an answer already seen
    const auto it = waiting_.find(message.channel_id);
    if (it == waiting_.end()) return;
    latencies_.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
    waiting_.erase(it);
  }
  std::size_t waiting() const {
    const std::lock_guard lock(mutex_);
    return waiting_.size();
  }
  std::vector<double> take_latencies() {
    const std::lock_guard lock(mutex_);
    return std::exchange(latencies_, {});
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Clock::time_point> waiting_;
  std::set<std::string> answered_ids_;
  std::vector<double> latencies_;
};

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto until = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// Posts one message per target (a new session when the target is empty) as close together as
// the fake allows, then waits for the agent's text in each.
std::string measure_wave(fake_discord::FakeDiscord& discord, OutputClock& clock,
                         const std::vector<std::string>& threads, int sessions,
                         std::vector<std::string>* opened, bool one_at_a_time = false) {
  for (int i = 0; i < sessions; ++i) {
    if (one_at_a_time && !wait_until([&] { return clock.waiting() == 0; }, 60s))
      return "a session opened on its own showed no agent output within 60 s";
    fake_discord::UserPost post;
    post.author_id = std::string(kBenchUser);
    post.content = "provider hello from session " + std::to_string(i);
    if (!threads.empty()) post.thread_id = threads[static_cast<std::size_t>(i)];
    const auto posted = Clock::now();
    // The thread a channel message opens carries the message's id.
    const auto id = discord.post_user_message(post);
    clock.expect(threads.empty() ? id : post.thread_id, posted);
    if (opened != nullptr) opened->push_back(id);
  }
  if (!wait_until([&] { return clock.waiting() == 0; }, 180s))
    return std::to_string(clock.waiting()) + " of " + std::to_string(sessions) +
           " sessions showed no agent output within 180 s";
  return {};
}

}  // namespace

RoundResult run_round(const RoundSetup& setup) {
  RoundResult result;
  auto clock = std::make_shared<OutputClock>();
  DaemonSetup daemon_setup;
  daemon_setup.backend = setup.backend;
  daemon_setup.sessions = setup.sessions;
  daemon_setup.live_sessions = setup.sessions + setup.sequential_sessions;
  daemon_setup.build_dir = setup.build_dir;
  daemon_setup.agent = setup.agent;
  daemon_setup.noop_plugins = setup.noop_plugins;
  BenchDaemon daemon(daemon_setup,
                     [clock](const fake_discord::StoredMessage& m) { clock->on_bot_message(m); });
  auto& discord = daemon.discord();
  const auto finish = [&](std::string problem) {
    result.problem = std::move(problem);
    if (!result.problem.empty()) result.problem += "\n" + daemon.err();
    return result;
  };
  if (!daemon.problem().empty()) {
    result.problem = daemon.problem();
    return result;
  }
  std::this_thread::sleep_for(1s);
  result.daemon_idle_kib = resident_kib(daemon.pid());

  std::vector<std::string> quiet;
  if (auto problem = measure_wave(discord, *clock, {}, setup.sequential_sessions, &quiet, true);
      !problem.empty())
    return finish(problem);
  result.quiet_opening_ms = clock->take_latencies();
  std::this_thread::sleep_for(1s);

  std::vector<std::string> threads;
  if (auto problem = measure_wave(discord, *clock, {}, setup.sessions, &threads); !problem.empty())
    return finish(problem);
  result.opening_ms = clock->take_latencies();
  if (std::getenv("BENCH_TRACE")) {
    const auto requests = discord.requests();
    const auto t0 = requests.empty() ? Clock::now() : requests.front().at;
    for (const auto& r : requests)
      std::fprintf(stderr, "%8.1f %s %s %u\n",
                   std::chrono::duration<double, std::milli>(r.at - t0).count(), r.method.c_str(),
                   r.path.c_str(), r.status);
  }
  // Every turn ended (its reaction posted) before the sessions count as live and idle.
  std::this_thread::sleep_for(2s);
  result.daemon_live_kib = resident_kib(daemon.pid());
  result.sandbox_side_kib = descendants_resident_kib(daemon.pid());

  if (auto problem = measure_wave(discord, *clock, threads, setup.sessions, nullptr);
      !problem.empty())
    return finish(problem);
  result.follow_up_ms = clock->take_latencies();
  result.daemon_peak_kib = peak_resident_kib(daemon.pid());
  return finish({});
}

}  // namespace errand::bench
