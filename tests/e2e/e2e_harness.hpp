#pragma once

// The real daemon (`errand run`) with the real bailey (or podman, or incus), broker and
// chat-discord plugins, talking to the fake Discord server, running the scripted ACP agent inside
// real sandboxes, whose model provider is the fake provider behind the real broker. Tests play the
// people in the channel and read what came back. Without a chat service (Front::web_only) the
// daemon has no `chat` block and people reach it through its web interface alone.

#include "core/threads/threads_db.hpp"
#include "fake_discord.hpp"
#include "tests/e2e/web_client.hpp"
#include "tests/fakes/provider/fake_provider.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/support/child_process.hpp"

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace errand::e2e {

// What a scenario's searches of posted text compare against.
inline constexpr auto npos = std::string::npos;

inline constexpr std::string_view kOwner = "500000000000000005";
// The operator the harness configures (chat.operatorUserIds), and someone it allows nothing.
inline constexpr std::string_view kOperator = "600000000000000006";
inline constexpr std::string_view kStranger = "700000000000000007";
// Each harness has secrets of its own (a provider key and a chat token), so a test that looks
// for one in every process on the machine never finds another test's, run at the same time.
std::string unique_secret(std::string_view prefix);

// The sandbox a scenario's sessions run in. Under podman the agent is the same fake, run from
// the e2e image (e2e_image.hpp); under incus, from the e2e golden instance (e2e_incus.hpp).
enum class Backend { bailey, podman, incus };
std::string backend_name(Backend backend);

// Where people reach the daemon: the fake Discord's channel, or the web interface on 127.0.0.1
// and a free port, with no chat service configured at all.
enum class Front { discord, web_only };

class E2eHarness {
 public:
  explicit E2eHarness(Backend backend = Backend::bailey, Front front = Front::discord);
  ~E2eHarness();
  E2eHarness(const E2eHarness&) = delete;
  E2eHarness& operator=(const E2eHarness&) = delete;

  // The configuration the daemon is started with; tests adjust it before start().
  boost::json::object& config() { return config_; }
  void set(std::string_view dotted, boost::json::value value);
  // A variable ("NAME=value") added to the daemon's environment from the next start on.
  void add_daemon_env(std::string name_value) { extra_env_.push_back(std::move(name_value)); }
  // From the next start on, no configuration file and no ERRAND_CONFIG: the daemon starts on
  // its built-in default, from the variables given with add_daemon_env, and serves its web
  // interface on the default's fixed address (127.0.0.1:8787).
  void use_built_in_default();

  // Writes the configuration, starts the daemon and waits until it is ready: its chat gateway
  // connected, or (web_only) its web interface answering GET /api/interface.
  void start();
  // Writes the configuration and starts a daemon expected to refuse to start: returns its exit
  // code (none when it was still running after the timeout, and then it is killed); its output
  // is in daemon_log().
  std::optional<int> start_expecting_refusal(
      std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // SIGTERM and wait; returns the exit code.
  std::optional<int> stop();
  // SIGKILL: no cleanup at all, as a crash.
  void kill_daemon();
  // Waits for a daemon that stops by itself (as after !shutdown), sending it nothing; returns
  // its exit code, none when it still ran after the timeout.
  std::optional<int> wait_for_exit(std::chrono::milliseconds timeout);
  errand::test::ChildProcess& daemon() { return *daemon_; }
  std::string daemon_log() const;

  fake_discord::FakeDiscord& discord();
  fakes::FakeProvider& provider() { return *provider_; }
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path state_dir() const { return root_ / "state"; }
  std::filesystem::path project_root() const { return root_ / "projects"; }
  std::string chat_token() const;
  // The provider credential configured for this harness's daemon.
  const std::string& provider_key() const { return provider_key_; }
  // The web interface of the daemon running now (web_only): http://127.0.0.1:<port>. Each
  // start() picks a free port, so a restart may move it.
  std::string web_url() const;
  std::uint16_t web_port() const;
  // The address the web interface is bound to (web.host; 127.0.0.1 unless a test sets it).
  std::string web_host() const;
  // Picks the web interface's port now and keeps it at every start(), for a test whose
  // configuration must name it before the daemon runs (sandbox.egressPorts); a port taken
  // meanwhile then fails the start instead of moving.
  std::uint16_t fix_web_port();
  // What the running daemon printed to open: the address with the operator's secret, and the
  // read-only one with the observer's; empty when it printed none. The door sends the operator's
  // secret (the observer's on an observer interface) with each request.
  std::string web_address() const;
  std::string web_observer_address() const;
  WebDoor web_door() const;
  // The configuration has a web block (web_only, or one a test added beside the chat service).
  bool serves_web() const;

  // A user's message in the served channel (thread empty) or in a thread; returns its id.
  std::string post(const std::string& text, const std::string& thread = {},
                   std::string_view author = kOwner);
  // The bot's messages in a channel or thread, oldest first.
  std::vector<fake_discord::StoredMessage> bot_messages(const std::string& channel) const;
  std::string bot_text(const std::string& channel) const;
  // Waits until the bot's text in the channel contains needle `times` times.
  bool wait_for_text(const std::string& channel, const std::string& needle,
                     std::chrono::milliseconds timeout = std::chrono::seconds(60),
                     std::size_t times = 1) const;
  std::size_t count_text(const std::string& channel, const std::string& needle) const;

  // threads.db as the daemon left it (opened read-write beside the running daemon, WAL).
  std::unique_ptr<sessions::ThreadsDb> threads_db() const;
  std::vector<sessions::SessionRecord> sessions_of(const std::string& thread_id) const;
  std::optional<sessions::TurnRecord> turn(const std::string& message_id) const;

  Backend backend() const { return backend_; }
  // The names of the containers, running or not, labelled with the session in this account's
  // podman store (`podman ps -a --filter label=errand.session=<id>`).
  std::vector<std::string> containers_of(const std::string& session_id) const;
  // The incus instances this daemon marked as its own (user.errand.system with its
  // user.errand.daemon), of any session or of one.
  std::vector<std::string> own_instances() const;
  std::vector<std::string> instances_of(const std::string& session_id) const;

  static std::string fake_agent();

 private:
  // Writes the configuration and starts `errand run`, without waiting for anything.
  void spawn_daemon();
  bool start_daemon();  // false when the daemon exited because its web port was taken meanwhile
  bool wait_for_web_interface();

  Backend backend_;
  Front front_;
  std::filesystem::path root_;
  fakes::TestCa discord_ca_;  // the fake Discord serves https and wss with a certificate from it
  std::unique_ptr<fake_discord::FakeDiscord> discord_;
  std::unique_ptr<fakes::FakeProvider> provider_;
  std::string provider_key_ = unique_secret("provider-key-e2e-");
  std::vector<std::string> extra_env_;
  bool built_in_default_ = false;
  bool web_port_fixed_ = false;
  boost::json::object config_;
  std::unique_ptr<errand::test::ChildProcess> daemon_;
  std::vector<std::string> logs_;  // the output of daemons already stopped
};

// Polls until pred() holds or the timeout passes.
bool eventually(const std::function<bool()>& pred,
                std::chrono::milliseconds timeout = std::chrono::seconds(60));

// The pids of processes whose command line contains needle.
std::vector<int> processes_with(const std::string& needle);

// A plain HTTP server answering every request "200 OK" with a short body, on 127.0.0.2: a
// loopback address, so the test stays on the machine, that the agent's NO_PROXY (127.0.0.1 and
// localhost) does not cover, so the agent's request goes through the broker's proxy, and a
// loopback address inside the 127.0.0.0/8 that sandbox.egress.allowInternal lists, so the
// broker dials it once it is granted.
class LoopbackHostServer {
 public:
  LoopbackHostServer();
  ~LoopbackHostServer();
  const std::string& host() const { return host_; }
  std::uint16_t port() const { return port_; }
  std::string url() const;
  std::size_t requests() const;
  // Empty when the server listens.
  const std::string& problem() const { return problem_; }

 private:
  struct State;
  std::string host_;
  std::uint16_t port_ = 0;
  std::string problem_;
  std::shared_ptr<State> state_;
};

}  // namespace errand::e2e
