#include "tests/e2e/e2e_harness.hpp"

#include "core/sessions/session_naming.hpp"

#include "common/daemon_mark.hpp"
#include "core/daemon/system_clock.hpp"
#include "plugins/sandbox-podman/impl/containers_conf.hpp"
#include "plugins/sandbox-podman/impl/podman_command.hpp"
#include "tests/e2e/e2e_image.hpp"
#include "tests/e2e/e2e_incus.hpp"
#include "tests/e2e/sanitizer_report.hpp"
#include "tests/e2e/web_client.hpp"
#include "tests/support/delegated_cgroups.hpp"
#include "tests/support/poll_until.hpp"
#include "tests/support/program_copy.hpp"

#include <errand/sdk/config_values.hpp>
#include "tests/support/temp_dir.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include "tests/support/test_paths.hpp"

namespace errand::e2e {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The agent runs from a copy outside /tmp (see copy_outside_tmp).
std::string E2eHarness::fake_agent() {
  static const std::string agent =
      errand::test::copy_outside_tmp(errand::test::build_path("tests/fakes/bin/fake-acp-agent"),
                                     "errand-e2e-agent")
          .string();
  return agent;
}

std::string backend_name(Backend backend) {
  switch (backend) {
    case Backend::podman: return "podman";
    case Backend::incus: return "incus";
    case Backend::bailey: break;
  }
  return "bailey";
}

namespace {

// A port nothing listens on now: bound and let go, for the daemon to bind next. Another
// program may take it meanwhile, which start() notices and answers with another port.
std::uint16_t free_loopback_port() {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  socklen_t length = sizeof address;
  const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                     ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int bind_errno = errno;
  ::close(fd);
  if (!bound) FAIL("no free port on 127.0.0.1: " << std::strerror(bind_errno));
  return ntohs(address.sin_port);
}

}  // namespace

E2eHarness::E2eHarness(Backend backend, Front front)
    : backend_(backend), front_(front), provider_(std::make_unique<fakes::FakeProvider>()) {
  // Under /tmp, like an operator's /srv: bailey binds these into the sandbox. incusd mounts
  // only what the project's disk paths cover, so incus daemons live under the test root.
  root_ = errand::test::make_temp_dir(backend_ == Backend::incus ? incus_test_root() : "/tmp",
                                      "errand-e2e-");
  fs::create_directories(root_ / "projects");
  fs::create_directories(root_ / "home");
  // The fake Discord as the real one is reached: https and wss, the certificate verified
  // against chat.caFile, and the gateway named by GET /gateway/bot with no path at all
  // (wss://127.0.0.1:<port>), so the daemon must build its request target itself.
  config_ = json::object{
      {"agent", json::object{{"kind", "acp"},
                             {"command", json::array{fake_agent()}},
                             {"baseUrlVariable", "ANTHROPIC_BASE_URL"},
                             {"provider", "anthropic"},
                             {"providers",
                              json::object{{"anthropic",
                                            json::object{{"credentialName", "ANTHROPIC_API_KEY"},
                                                         {"credential", provider_key_},
                                                         {"kind", "anthropic"},
                                                         {"baseUrl", provider_->http_url()}}}}}}},
      {"sandbox",
       json::object{{"backend", "bailey"},
                    {"gracePeriodMs", 2000},
                    {"diskCheckMs", 2000},
                    {"egress", json::object{{"allow", json::array{}},
                                            {"allowInternal", json::array{"127.0.0.0/8"}}}}}},
      {"output", json::object{{"forwardToolOutput", true}}},
      {"logging", json::object{{"level", "debug"}}},
      {"projectRoot", (root_ / "projects").string()},
      {"stateDir", (root_ / "state").string()}};
  if (front_ == Front::discord) {
    discord_ca_ = fakes::make_test_ca(root_ / "discord-ca", "errand e2e Discord CA");
    fake_discord::FakeOptions discord_options;
    discord_options.tls = fake_discord::FakeTls{discord_ca_.server_cert, discord_ca_.server_key};
    discord_options.token = unique_secret("fake-discord-bot-token-");
    discord_ = std::make_unique<fake_discord::FakeDiscord>(discord_options);
    const auto& fake = discord_->options();
    config_["chat"] = json::object{{"token", fake.token},
                                   {"channelId", fake.channel_id},
                                   {"guildId", fake.guild_id},
                                   {"allowedUserIds", json::array{std::string(kOwner)}},
                                   {"operatorUserIds", json::array{std::string(kOperator)}},
                                   {"apiBase", discord_->api_base()},
                                   {"caFile", discord_ca_.ca_cert.string()}};
  } else {
    // The port is chosen at each start().
    config_["web"] = json::object{{"host", "127.0.0.1"}};
  }
  if (backend_ == Backend::podman) {
    set("sandbox.backend", "podman");
    set("sandbox.image", json::string(e2e_image()));
    set("agent.command", json::array{std::string(kImageAgent)});
    // Rootless podman on this project's cgroup v1 test hosts applies no memory, cpu or process
    // limit: the probe reports each as a gap and errand run refuses them unless told otherwise.
    // The scenarios test the session flow, not those limits (the podman live tests and the
    // probe's own tests cover the gaps).
    set("sandbox.requireFullEnforcement", false);
  }
  if (backend_ == Backend::incus) {
    const auto target = incus_target();
    set("sandbox.backend", "incus");
    json::object incus{{"project", target.project},
                       {"image", target.image},
                       {"golden", e2e_golden()},
                       {"guestUid", 1000}};
    if (!target.socket.empty()) incus["socket"] = target.socket;
    set("sandbox.incus", std::move(incus));
    set("agent.command", json::array{std::string(kImageAgent)});
  }
}

E2eHarness::~E2eHarness() {
  if (daemon_) {
    daemon_->signal(SIGTERM);
    if (!daemon_->wait_for(30s)) daemon_->signal(SIGKILL);
    logs_.push_back(daemon_->err());
    daemon_.reset();
  }
  // Against a sanitized daemon, a report fails the scenario even when its checks passed. FAIL_CHECK
  // records the failure without throwing, which a destructor must not.
  if (const auto report = sanitizer_report(daemon_log()); !report.empty()) {
    FAIL_CHECK("a sanitizer reported an error in the daemon:\n" << report);
  }
  // The threads' kept instances (sandbox.incus.keptTotal) outlive the daemon, as they would on
  // a host; the test's are removed with its state directory.
  if (backend_ == Backend::incus) {
    try {
      remove_instances(own_instances());
    } catch (...) {
    }
  }
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void E2eHarness::set(std::string_view dotted, json::value value) {
  json::object* at = &config_;
  while (true) {
    const auto dot = dotted.find('.');
    const std::string key(dotted.substr(0, dot));
    if (dot == std::string_view::npos) {
      (*at)[key] = std::move(value);
      return;
    }
    auto& next = (*at)[key];
    if (!next.is_object()) next = json::object{};
    at = &next.as_object();
    dotted.remove_prefix(dot + 1);
  }
}

fake_discord::FakeDiscord& E2eHarness::discord() {
  REQUIRE(discord_);  // a web_only harness has no chat service
  return *discord_;
}

std::string unique_secret(std::string_view prefix) {
  return std::string(prefix) + sessions::random_token() + sessions::random_token();
}

std::string E2eHarness::chat_token() const {
  REQUIRE(discord_);
  return discord_->options().token;
}

std::uint16_t E2eHarness::web_port() const {
  const auto* web = config_.if_contains("web");
  const auto* port =
      web != nullptr && web->is_object() ? web->as_object().if_contains("port") : nullptr;
  REQUIRE(port != nullptr);
  return static_cast<std::uint16_t>(port->to_number<int>());
}

std::uint16_t E2eHarness::fix_web_port() {
  REQUIRE(serves_web());
  const auto port = free_loopback_port();
  set("web.port", port);
  web_port_fixed_ = true;
  return port;
}

bool E2eHarness::serves_web() const {
  const auto* web = config_.if_contains("web");
  return web != nullptr && web->is_object();
}

std::string E2eHarness::web_host() const {
  const auto* web = config_.if_contains("web");
  const auto* host =
      web != nullptr && web->is_object() ? web->as_object().if_contains("host") : nullptr;
  return host != nullptr && host->is_string() ? std::string(host->as_string()) : "127.0.0.1";
}

std::string E2eHarness::web_url() const {
  return "http://" + web_host() + ":" + std::to_string(web_port());
}

namespace {

// The word after `label` on the daemon's standard output, or empty.
std::string printed_after(const std::string& out, std::string_view label) {
  const auto at = out.rfind(label);
  if (at == npos) return {};
  const auto start = at + label.size();
  return out.substr(start, out.find_first_of(" \n", start) - start);
}

std::string secret_of(const std::string& address) {
  const auto at = address.find("?access=");
  return at == npos ? std::string() : address.substr(at + 8);
}

}  // namespace

std::string E2eHarness::web_address() const {
  return daemon_ ? printed_after(daemon_->out(), "web interface: open ") : std::string();
}

std::string E2eHarness::web_observer_address() const {
  return daemon_ ? printed_after(daemon_->out(), "web interface, read only: ") : std::string();
}

WebDoor E2eHarness::web_door() const {
  auto secret = secret_of(web_address());
  if (secret.empty()) secret = secret_of(web_observer_address());
  return WebDoor{web_port(), secret, web_host()};
}

void E2eHarness::start() {
  REQUIRE(!daemon_);
  // A port taken between its choice and the daemon's bind is a race with the other tests on the
  // machine, not the daemon's fault: another port is tried.
  for (int attempt = 0; attempt < 3; ++attempt) {
    // The built-in default's port is fixed: taken, it is the test's failure to report.
    if (built_in_default_ || web_port_fixed_) {
      if (!start_daemon())
        FAIL("the web interface's fixed port " << web_port() << " is in use:\n" << daemon_log());
      return;
    }
    if (serves_web() && !web_port_fixed_) set("web.port", free_loopback_port());
    if (start_daemon()) return;
    logs_.push_back(daemon_->err());
    daemon_.reset();
  }
  FAIL("the daemon found its web port in use three times:\n" << daemon_log());
}

namespace {

// Where the daemon loads its plugins from. With agent.delegate its sessions are shown the
// tools/ directory beside the broker plugin, which bailey refuses under /tmp, where a fresh
// clone's build tree may well be; staged once per process, since that links every plugin file.
std::string plugin_dir(const json::object& config) {
  const std::string built = errand::test::build_path("plugins").string();
  if (errand::sdk::find_setting(config, "agent.delegate") == nullptr) return built;
  static const std::string staged = errand::test::stage_plugins_outside_tmp(built).string();
  return staged;
}

}  // namespace

void E2eHarness::use_built_in_default() {
  REQUIRE(front_ == Front::web_only);
  REQUIRE(backend_ == Backend::bailey);
  built_in_default_ = true;
  // What the harness reads back (web_port, serves_web) as the built-in default has it.
  config_ = json::object{{"web", json::object{{"host", "127.0.0.1"}, {"port", 8787}}}};
}

void E2eHarness::spawn_daemon() {
  std::vector<std::string> env{"ERRAND_PLUGIN_PATH=" + plugin_dir(config_),
                               "HOME=" + (root_ / "home").string(), "PATH=/usr/bin:/bin"};
  if (!built_in_default_) {
    errand::test::write_file(root_ / "config.json", json::serialize(config_));
    env.push_back("ERRAND_CONFIG=" + (root_ / "config.json").string());
  }
  // The built front-end (web/CMakeLists.txt builds it into the build tree).
  if (serves_web()) env.push_back("ERRAND_WEB_ROOT=" + errand::test::build_path("web").string());
  for (auto& variable : errand::test::delegated_environment()) env.push_back(std::move(variable));
  env.insert(env.end(), extra_env_.begin(), extra_env_.end());
  daemon_ = std::make_unique<errand::test::ChildProcess>(
      std::vector<std::string>{errand::test::build_path("bin/errand").string(), "run"}, env, root_);
}

bool E2eHarness::start_daemon() {
  spawn_daemon();
  // With a chat service the gateway comes first; the web interface, when there is one, after.
  // A daemon that exits (a refusal, a sanitizer's abort) ends the wait at once.
  const auto said_ready = [&] {
    return daemon_->err().find("the chat connection is ready") != std::string::npos;
  };
  const auto chat_ready = [&] {
    eventually([&] { return said_ready() || daemon_->wait_for(0ms).has_value(); });
    return said_ready() && !daemon_->wait_for(0ms);
  };
  const bool ready =
      (front_ == Front::web_only || chat_ready()) && (!serves_web() || wait_for_web_interface());
  if (ready) return true;
  const auto exited = daemon_->wait_for(0ms);
  if (exited && serves_web() && daemon_->err().find("is in use") != std::string::npos) return false;
  FAIL("the daemon did not become ready (exit " << (exited ? std::to_string(*exited) : "none")
                                                << "):\n"
                                                << daemon_->err());
  return false;
}

bool E2eHarness::wait_for_web_interface() {
  // The addresses are printed once the interface listens; its secrets come from them.
  return eventually([&] {
           if (daemon_->wait_for(0ms)) return true;  // exited: start_daemon says why
           if (web_door().secret.empty()) return false;
           return web_request(web_door(), WebRequest::get("/api/interface"), 2s).status == 200;
         }) &&
         !daemon_->wait_for(0ms);
}

std::optional<int> E2eHarness::start_expecting_refusal(std::chrono::milliseconds timeout) {
  REQUIRE(!daemon_);
  spawn_daemon();
  auto code = daemon_->wait_for(timeout);
  if (!code) {
    daemon_->signal(SIGKILL);
    daemon_->wait_for(20s);
  }
  logs_.push_back(daemon_->out() + daemon_->err());
  daemon_.reset();
  return code;
}

std::optional<int> E2eHarness::stop() {
  REQUIRE(daemon_);
  daemon_->signal(SIGTERM);
  auto code = daemon_->wait_for(60s);
  logs_.push_back(daemon_->err());
  daemon_.reset();
  return code;
}

std::optional<int> E2eHarness::wait_for_exit(std::chrono::milliseconds timeout) {
  REQUIRE(daemon_);
  auto code = daemon_->wait_for(timeout);
  if (!code) return code;
  logs_.push_back(daemon_->err());
  daemon_.reset();
  return code;
}

void E2eHarness::kill_daemon() {
  REQUIRE(daemon_);
  daemon_->signal(SIGKILL);
  daemon_->wait_for(20s);
  logs_.push_back(daemon_->err());
  daemon_.reset();
}

std::string E2eHarness::daemon_log() const {
  std::string all;
  for (const auto& log : logs_) all += log;
  if (daemon_) all += daemon_->err();
  return all;
}

std::string E2eHarness::post(const std::string& text, const std::string& thread,
                             std::string_view author) {
  fake_discord::UserPost post;
  post.thread_id = thread;
  post.author_id = std::string(author);
  post.username = author == kOwner ? "alice" : "bob";
  post.content = text;
  return discord().post_user_message(post);
}

std::vector<fake_discord::StoredMessage> E2eHarness::bot_messages(
    const std::string& channel) const {
  std::vector<fake_discord::StoredMessage> out;
  REQUIRE(discord_);
  for (auto& m : discord_->messages(channel))
    if (m.by_bot && !m.deleted) out.push_back(std::move(m));
  return out;
}

std::string E2eHarness::bot_text(const std::string& channel) const {
  std::string text;
  for (const auto& m : bot_messages(channel)) text += m.content + "\n";
  return text;
}

std::size_t E2eHarness::count_text(const std::string& channel, const std::string& needle) const {
  const auto text = bot_text(channel);
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

bool E2eHarness::wait_for_text(const std::string& channel, const std::string& needle,
                               std::chrono::milliseconds timeout, std::size_t times) const {
  return eventually([&] { return count_text(channel, needle) >= times; }, timeout);
}

std::unique_ptr<sessions::ThreadsDb> E2eHarness::threads_db() const {
  static daemon::SystemClock clock;
  auto db = sessions::ThreadsDb::open(state_dir() / "threads.db", clock);
  REQUIRE(db.has_value());
  return std::move(*db);
}

std::vector<sessions::SessionRecord> E2eHarness::sessions_of(const std::string& thread_id) const {
  auto db = threads_db();
  auto sessions = db->sessions_of(thread_id);
  REQUIRE(sessions.has_value());
  return *sessions;
}

std::optional<sessions::TurnRecord> E2eHarness::turn(const std::string& message_id) const {
  auto db = threads_db();
  auto found = db->find_turn(message_id);
  REQUIRE(found.has_value());
  return *found;
}

std::vector<std::string> E2eHarness::containers_of(const std::string& session_id) const {
  auto conf = podman::write_containers_conf(root_ / "podman-client");
  REQUIRE(conf.has_value());
  const auto env = podman::environment_for_this_account(*conf);
  auto listed = podman::run_podman(
      env,
      {"ps", "--all", "--filter", "label=errand.session=" + session_id, "--format", "{{.Names}}"},
      60s);
  REQUIRE(listed.has_value());
  INFO(podman::failure_text(*listed));
  REQUIRE(listed->exit_code == 0);
  std::vector<std::string> names;
  std::istringstream lines(listed->out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) names.push_back(line);
  return names;
}

std::vector<std::string> E2eHarness::own_instances() const {
  const auto mark = common::daemon_mark(state_dir());
  std::vector<std::string> names;
  for (const auto& instance : errand_instances())
    if (instance.daemon == mark) names.push_back(instance.name);
  return names;
}

std::vector<std::string> E2eHarness::instances_of(const std::string& session_id) const {
  const auto mark = common::daemon_mark(state_dir());
  std::vector<std::string> names;
  for (const auto& instance : errand_instances())
    if (instance.daemon == mark && instance.session == session_id) names.push_back(instance.name);
  return names;
}

bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  return errand::test::poll_until(pred, timeout, 50ms);
}

std::vector<int> processes_with(const std::string& needle) {
  std::vector<int> pids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto cmdline = text.str();
    for (auto& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(needle) != std::string::npos) pids.push_back(std::stoi(name));
  }
  return pids;
}

struct LoopbackHostServer::State {
  int fd = -1;
  std::atomic<std::size_t> requests{0};
  std::thread thread;
};

LoopbackHostServer::LoopbackHostServer() : host_("127.0.0.2"), state_(std::make_shared<State>()) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  ::inet_pton(AF_INET, host_.c_str(), &address.sin_addr);
  state_->fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (::bind(state_->fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(state_->fd, 16) != 0) {
    problem_ = "cannot listen on " + host_ + ": " + std::strerror(errno);
    return;
  }
  socklen_t length = sizeof address;
  ::getsockname(state_->fd, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  state_->thread = std::thread([state = state_] {
    while (true) {
      const int client = ::accept(state->fd, nullptr, nullptr);
      if (client < 0) return;
      std::string head;
      char buffer[1024];
      while (head.find("\r\n\r\n") == std::string::npos) {
        const auto n = ::read(client, buffer, sizeof buffer);
        if (n <= 0) break;
        head.append(buffer, static_cast<std::size_t>(n));
      }
      ++state->requests;
      static constexpr std::string_view kAnswer =
          "HTTP/1.1 200 OK\r\nContent-Length: 13\r\nConnection: close\r\n\r\nloopback-host";
      [[maybe_unused]] auto written = ::write(client, kAnswer.data(), kAnswer.size());
      ::close(client);
    }
  });
}

LoopbackHostServer::~LoopbackHostServer() {
  if (state_->fd >= 0) {
    ::shutdown(state_->fd, SHUT_RDWR);
    ::close(state_->fd);
  }
  if (state_->thread.joinable()) state_->thread.join();
}

std::string LoopbackHostServer::url() const {
  return "http://" + host_ + ":" + std::to_string(port_) + "/";
}

std::size_t LoopbackHostServer::requests() const {
  return state_->requests.load();
}

}  // namespace errand::e2e
