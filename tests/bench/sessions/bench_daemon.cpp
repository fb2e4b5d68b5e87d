#include "bench_daemon.hpp"

#include <boost/json/serialize.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/support/delegated_cgroups.hpp"
#include "tests/support/temp_dir.hpp"

namespace errand::bench {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view kProviderKey = "provider-key-bench-0123456789abcdef";

json::object daemon_config(const DaemonSetup& setup, const fake_discord::FakeDiscord& discord,
                           const fakes::FakeProvider& provider, const fs::path& root) {
  const auto& fake = discord.options();
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
                            {"allowedUserIds", json::array{std::string(kBenchUser)}},
                            {"apiBase", discord.api_base()},
                            {"gatewayUrl", discord.gateway_url()}}},
      {"agent",
       json::object{
           {"kind", "acp"},
           {"command", json::array{setup.agent.string()}},
           {"baseUrlVariable", "ANTHROPIC_BASE_URL"},
           {"provider", "anthropic"},
           {"providers",
            json::object{{"anthropic", json::object{{"credentialName", "ANTHROPIC_API_KEY"},
                                                    {"credential", std::string(kProviderKey)},
                                                    {"kind", "anthropic"},
                                                    {"baseUrl", provider.http_url()},
                                                    {"maxConcurrentRequests", setup.sessions}}}}}}},
      {"sandbox", std::move(sandbox)},
      {"limits", json::object{{"maxConcurrentTurns", setup.sessions},
                              {"maxLiveSessions", setup.live_sessions},
                              {"maxQueueLength", 2 * setup.sessions}}},
      // info: the daemon says at that level when its chat connection is ready.
      {"logging", json::object{{"level", "info"}}},
      {"projectRoot", (root / "projects").string()},
      {"stateDir", (root / "state").string()}};
}

fake_discord::FakeOptions fake_options(
    std::function<void(const fake_discord::StoredMessage&)> on_bot_message) {
  fake_discord::FakeOptions options;
  // Discord's own limits would pace 50 thread starts by themselves and hide the sandbox's
  // share; the benchmark measures errand, so the fake lets everything through at once.
  options.channel_messages_per_window = 100000;
  options.channel_window = 1s;
  options.global_per_second = 100000;
  options.on_bot_message = std::move(on_bot_message);
  return options;
}

}  // namespace

BenchDaemon::BenchDaemon(const DaemonSetup& setup,
                         std::function<void(const fake_discord::StoredMessage&)> on_bot_message) {
  try {
    root_ = test::make_temp_dir("/var/tmp", "errand-bench-sessions-");
  } catch (const std::runtime_error& e) {
    problem_ = e.what();
    return;
  }
  fs::create_directories(root_ / "projects");
  fs::create_directories(root_ / "home");
  discord_ = std::make_unique<fake_discord::FakeDiscord>(fake_options(std::move(on_bot_message)));
  provider_ = std::make_unique<fakes::FakeProvider>();

  test::write_file(root_ / "config.json",
                   json::serialize(daemon_config(setup, *discord_, *provider_, root_)));
  // sandbox-noop.so only where it is the backend: loaded beside bailey it would add its own
  // code to the memory measured for a daemon that never uses it.
  auto plugin_path = (setup.build_dir / "plugins").string();
  if (setup.backend == "noop") plugin_path += ":" + setup.noop_plugins.string();
  std::vector<std::string> env{"ERRAND_CONFIG=" + (root_ / "config.json").string(),
                               "ERRAND_PLUGIN_PATH=" + plugin_path,
                               "HOME=" + (root_ / "home").string(), "PATH=/usr/bin:/bin"};
  for (auto& variable : test::delegated_environment()) env.push_back(std::move(variable));
  // More of the daemon's environment for an experiment (MALLOC_ARENA_MAX=1, LD_DEBUG=...):
  // NAME=value words separated by spaces.
  if (const char* extra = std::getenv("BENCH_DAEMON_ENV")) {
    std::istringstream words(extra);
    for (std::string word; words >> word;) env.push_back(word);
  }
  daemon_ = std::make_unique<test::ChildProcess>(
      std::vector<std::string>{(setup.build_dir / "bin" / "errand").string(), "run"}, env, root_);
  if (!daemon_->wait_for_output("the chat connection is ready", 60s))
    problem_ = "the daemon with backend " + setup.backend + " did not become ready\n" + err();
}

BenchDaemon::~BenchDaemon() {
  // Stopped before the fakes it talks to go away.
  if (daemon_) {
    daemon_->signal(SIGTERM);
    if (!daemon_->wait_for(120s)) daemon_->signal(SIGKILL);
    daemon_.reset();
  }
  if (root_.empty()) return;
  std::error_code ec;
  fs::remove_all(root_, ec);
}

}  // namespace errand::bench
