#pragma once

// The incus backend as a daemon holds it, for live tests that go through launch(): the real
// incusd, the project and test image scripts/start-incus and image/build prepared, a private
// state directory under the test root the project's disk paths cover, a LaunchSpec per session,
// and an io_context running on a thread of its own (the exec's stdio is spliced on it while a
// test reads and writes the session's fds).

#include <unistd.h>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/beast/http/verb.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-incus/impl/incus_backend.hpp"
#include "plugins/sandbox-incus/impl/launch_request.hpp"
#include "tests/live/incus/client_live.hpp"
#include "tests/support/fd_text.hpp"
#include "tests/support/host_parts.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::incus::live {

namespace asio = boost::asio;
namespace fs = std::filesystem;
namespace sdk = errand::sdk;

// Where the project's restricted.devices.disk.paths lets sessions' directories be.
// The session starts as soon as LXC runs the container; systemd's own socket comes a moment
// later, and until then systemctl says offline (or nothing). This waits for the boot to settle
// and leaves systemd's answer in $state. As root through sudo: the image has no D-Bus, which
// systemctl needs as any other account.
inline constexpr std::string_view kAwaitBoot =
    "for i in $(seq 240); do "
    "  state=$(sudo -n timeout 120 systemctl is-system-running --wait 2>/dev/null); "
    "  case \"$state\" in ''|offline) sleep 0.5 ;; *) break ;; esac; "
    "done; ";

inline fs::path test_root() {
  const char* root = std::getenv("ERRAND_INCUS_TEST_ROOT");
  return root != nullptr && *root != '\0' ? fs::path(root) : fs::path("/srv/errand-test");
}

struct Daemon {
  errand::test::TempDir dir{test_root()};
  errand::test::HostParts parts;
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  std::thread runner{[this] { io.run(); }};
  boost::json::object config;
  std::unique_ptr<IncusBackend> backend;
  int counter = 0;
  // What the backends logged, for tests that assert it said what it did (a stop's escalation).
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_lines =
      std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);

  std::string log_text() const {
    std::string text;
    for (const auto& line : log_lines->last_formatted()) text += line;
    return text;
  }

  // sandbox.incus as the host hands it over, every defaulted key written; incus may add more.
  explicit Daemon(boost::json::object incus = {}) {
    const auto settings = live_incus();
    incus.emplace("project", settings.project);
    incus.emplace("image", settings.image);
    incus.emplace("socket", settings.socket);
    incus.emplace("guestUid", 1000);
    incus.emplace("rootSize", "20g");
    incus.emplace("keptTotal", "40g");
    config = boost::json::object{{"sandbox", boost::json::object{{"incus", incus}}}};
    fs::create_directories(dir.path() / "state");
    backend = another_backend();
  }

  // A backend on the same state directory, as the daemon's next start would make: the same
  // daemon mark, and no session it knows of.
  std::unique_ptr<IncusBackend> another_backend() {
    auto log = std::make_shared<spdlog::logger>("incus", log_lines);
    return std::make_unique<IncusBackend>(
        parts.services(io.get_executor(), log, config,
                       errand::test::build_path(ERRAND_INCUS_PLUGIN), dir.path() / "state"));
  }

  ~Daemon() {
    backend.reset();
    work.reset();
    runner.join();
  }

  sdk::LaunchSpec spec(std::vector<std::string> argv) {
    sdk::LaunchSpec s;
    s.session_id = "live-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    s.project_dir = dir.path() / "projects" / s.session_id;
    s.state_dir = dir.path() / "sessions" / s.session_id / "state";
    s.record_dir = dir.path() / "sessions" / s.session_id / "record";
    fs::create_directories(s.project_dir);
    fs::create_directories(s.state_dir / "home");
    fs::create_directories(s.record_dir);
    auto policy = errand::sandbox::policy_from_config(boost::json::object{});
    REQUIRE(policy.has_value());
    s.policy = *policy;
    s.policy.network = sdk::NetworkMode::none;
    // As the daemon's configuration would name them: the roots the project's disk paths cover.
    s.policy.project_root = dir.path() / "projects";
    s.policy.state_dir = dir.path();
    s.argv = std::move(argv);
    return s;
  }

  template <class T>
  T run(asio::awaitable<T> work_item) {
    return asio::co_spawn(io, std::move(work_item), asio::use_future).get();
  }

  sdk::EnforcementReport probe(const sdk::SandboxPolicy& policy) { return backend->probe(policy); }

  std::unique_ptr<sdk::SandboxProcess> launch(sdk::LaunchSpec s) {
    auto launched = run(backend->launch(std::move(s)));
    INFO((launched ? std::string() : launched.error().message));
    REQUIRE(launched.has_value());
    return std::move(*launched);
  }

  // incusd's document of the instance with this name, or nothing when there is none.
  std::optional<boost::json::value> instance_named(const std::string& name) {
    const auto settings = live_incus();
    asio::io_context own;
    IncusClient client(own.get_executor(), settings.socket, settings.project);
    auto got = client.request_blocking(boost::beast::http::verb::get, "/1.0/instances/" + name);
    if (!got && got.error().kind == sdk::Error::Kind::not_found) return std::nullopt;
    INFO((got ? std::string() : got.error().message));
    REQUIRE(got.has_value());
    return std::move(*got);
  }

  bool instance_exists(const std::string& session_id) {
    return instance_named(instance_name(session_id)).has_value();
  }
};

// Where the core would post the backend's notices (sdk::SessionNotices): here, collected.
class ToldNotices {
 public:
  explicit ToldNotices(IncusBackend& backend) {
    auto* notices = errand::sdk::find_extension<errand::sdk::SessionNotices>(backend);
    REQUIRE(notices != nullptr);
    notices->send_notices_to([this](const std::string& id, const std::string& text) {
      std::lock_guard lock(mutex_);
      told_.emplace_back(id, text);
    });
  }
  // Each (session id, sentence) so far, in order.
  std::vector<std::pair<std::string, std::string>> all() const {
    std::lock_guard lock(mutex_);
    return told_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> told_;
};

// The value a session printed after "name=" on a line of its own, or empty.
inline std::string printed_value(const std::string& out, const std::string& name) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(name + "=", 0) == 0) return line.substr(name.size() + 1);
  return {};
}

using errand::test::read_all;

inline void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    REQUIRE(n > 0);
    done += static_cast<std::size_t>(n);
  }
}

// A session run to its end: what the agent wrote and how it ended. stdout is read to its end
// before stderr, so the agent writes little to stderr.
struct Ended {
  std::string out;
  std::string err;
  sdk::ExitInfo exit;
};

inline Ended run_to_end(Daemon& daemon, sdk::LaunchSpec spec) {
  auto process = daemon.launch(std::move(spec));
  Ended ended;
  ended.out = read_all(process->stdout_fd());
  ended.err = read_all(process->stderr_fd());
  ended.exit = daemon.run(process->wait());
  return ended;
}

}  // namespace errand::incus::live
