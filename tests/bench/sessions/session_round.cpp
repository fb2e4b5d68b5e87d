#include "session_round.hpp"

#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "fake_discord.hpp"
#include "process_memory.hpp"
#include "tests/fakes/provider/fake_provider.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/delegated_cgroups.hpp"
#include "tests/support/temp_dir.hpp"

namespace errand::bench {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::string_view kUser = "500000000000000005";
constexpr std::string_view kProviderKey = "provider-key-bench-0123456789abcdef";
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

json::object daemon_config(const RoundSetup& setup, const fake_discord::FakeDiscord& discord,
                           const fakes::FakeProvider& provider, const fs::path& root) {
  const auto& fake = discord.options();
  const auto sessions = setup.sessions;
  json::object sandbox{{"backend", setup.backend},
                       {"gracePeriodMs", 2000},
                       {"egress", json::object{{"allow", json::array{}},
                                               {"allowInternal", json::array{"127.0.0.0/8"}}}}};
  // The noop backend reports every guarantee as a gap; the daemon runs with it only when told
  // to accept that, which is what makes it a measuring peer and nothing else.
  if (setup.backend == "noop") sandbox["requireFullEnforcement"] = false;
  return json::object{
      {"chat", json::object{{"token", fake.token},
                            {"channelId", fake.channel_id},
                            {"allowedUserIds", json::array{std::string(kUser)}},
                            {"apiBase", discord.api_base()},
                            {"gatewayUrl", discord.gateway_url()}}},
      {"agent", json::object{{"kind", "acp"},
                             {"command", json::array{setup.agent.string()}},
                             {"baseUrlVariable", "ANTHROPIC_BASE_URL"},
                             {"provider", "anthropic"},
                             {"providers",
                              json::object{{"anthropic",
                                            json::object{{"credentialName", "ANTHROPIC_API_KEY"},
                                                         {"credential", std::string(kProviderKey)},
                                                         {"kind", "anthropic"},
                                                         {"baseUrl", provider.http_url()},
                                                         {"maxConcurrentRequests", sessions}}}}}}},
      {"sandbox", std::move(sandbox)},
      {"limits", json::object{{"maxConcurrentTurns", sessions},
                              {"maxLiveSessions", sessions + setup.sequential_sessions},
                              {"maxQueueLength", 2 * sessions}}},
      // info: the daemon says at that level when its chat connection is ready.
      {"logging", json::object{{"level", "info"}}},
      {"projectRoot", (root / "projects").string()},
      {"stateDir", (root / "state").string()}};
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
    post.author_id = std::string(kUser);
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
  // Under /var/tmp, where bailey may bind the project and state directories.
  fs::path root;
  try {
    root = errand::test::make_temp_dir("/var/tmp", "errand-bench-sessions-");
  } catch (const std::runtime_error& e) {
    result.problem = e.what();
    return result;
  }
  fs::create_directories(root / "projects");
  fs::create_directories(root / "home");

  auto clock = std::make_shared<OutputClock>();
  fake_discord::FakeOptions options;
  // Discord's own limits would pace 50 thread starts by themselves and hide the sandbox's
  // share; the benchmark measures errand, so the fake lets everything through at once.
  options.channel_messages_per_window = 100000;
  options.channel_window = 1s;
  options.global_per_second = 100000;
  options.on_bot_message = [clock](const fake_discord::StoredMessage& m) {
    clock->on_bot_message(m);
  };
  fake_discord::FakeDiscord discord(options);
  fakes::FakeProvider provider;

  test::write_file(root / "config.json",
                   json::serialize(daemon_config(setup, discord, provider, root)));
  const auto plugin_path =
      (setup.build_dir / "plugins").string() + ":" + setup.noop_plugins.string();
  std::vector<std::string> env{"ERRAND_CONFIG=" + (root / "config.json").string(),
                               "ERRAND_PLUGIN_PATH=" + plugin_path,
                               "HOME=" + (root / "home").string(), "PATH=/usr/bin:/bin"};
  for (auto& variable : test::delegated_environment()) env.push_back(std::move(variable));
  test::ChildProcess daemon({(setup.build_dir / "bin" / "errand").string(), "run"}, env, root);
  const auto finish = [&](std::string problem) {
    result.problem = std::move(problem);
    if (!result.problem.empty()) result.problem += "\n" + daemon.err();
    daemon.signal(SIGTERM);
    if (!daemon.wait_for(120s)) daemon.signal(SIGKILL);
    std::error_code ec;
    fs::remove_all(root, ec);
    return result;
  };
  if (!daemon.wait_for_output("the chat connection is ready", 60s))
    return finish("the daemon with backend " + setup.backend + " did not become ready");
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
