#include <unistd.h>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch_test_macros.hpp>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-podman/impl/podman_backend.hpp"
#include "tests/live/podman/live_podman.hpp"
#include "tests/support/host_parts.hpp"

// A session's container through the backend itself: launched from a LaunchSpec, its stdio the
// agent's, stopped through podman stop, and always gone afterwards; and the orphan sweep.

using namespace errand::podman;
using namespace errand::podman::live;
namespace asio = boost::asio;
namespace fs = std::filesystem;
namespace sdk = errand::sdk;

namespace {

struct Daemon {
  errand::test::TempDir dir;
  errand::test::HostParts parts;
  asio::io_context io;
  std::unique_ptr<PodmanBackend> backend;
  int counter = 0;

  // The configuration as the host hands it over: sandbox.image written or defaulted.
  explicit Daemon(const std::string& image = kTestImage) {
    boost::json::object config{{"sandbox", boost::json::object{{"image", image}}}};
    auto log =
        std::make_shared<spdlog::logger>("podman", std::make_shared<spdlog::sinks::null_sink_mt>());
    fs::create_directories(dir.path() / "state");
    backend = std::make_unique<PodmanBackend>(
        parts.services(io.get_executor(), log, config, ERRAND_PODMAN_PLUGIN, dir.path() / "state"));
  }

  sdk::LaunchSpec spec(std::vector<std::string> argv) {
    sdk::LaunchSpec s;
    s.session_id = "live-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    s.project_dir = dir.path() / "projects" / s.session_id;
    s.state_dir = dir.path() / "sessions" / s.session_id;
    fs::create_directories(s.project_dir);
    fs::create_directories(s.state_dir / "home");
    auto policy = errand::sandbox::policy_from_config(boost::json::object{});
    REQUIRE(policy.has_value());
    s.policy = *policy;
    s.policy.network = sdk::NetworkMode::none;
    s.argv = std::move(argv);
    return s;
  }

  template <class T>
  T run(asio::awaitable<T> work) {
    auto done = asio::co_spawn(io, std::move(work), asio::use_future);
    io.restart();
    while (done.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) io.run_one();
    return done.get();
  }

  std::unique_ptr<sdk::SandboxProcess> launch(std::vector<std::string> argv) {
    auto launched = run(backend->launch(spec(std::move(argv))));
    INFO((launched ? std::string() : launched.error().message));
    REQUIRE(launched.has_value());
    return std::move(*launched);
  }

  bool container_exists(const std::string& name) {
    auto conf = dir.path() / "state" / "podman" / "containers.conf";
    auto out =
        run_podman(environment_for_this_account(conf), {"container", "exists", name}, kRunTimeout);
    REQUIRE(out.has_value());
    return out->exit_code == 0;
  }
};

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

TEST_CASE("a launched session runs true, ends with 0, and its container is gone") {
  Daemon d;
  auto process = d.launch({"true"});
  const auto exit = d.run(process->wait());
  INFO(exit.detail << exit.cleanup_detail);
  REQUIRE(exit.exit_code.has_value());
  CHECK(*exit.exit_code == 0);
  CHECK(exit.cleanup_complete);
  CHECK_FALSE(d.container_exists(container_name("live-" + std::to_string(::getpid()) + "-1")));
}

TEST_CASE("the backend probes and runs the image sandbox.image names", "[key:sandbox.image]") {
  const auto gaps_of = [](const sdk::EnforcementReport& r) {
    std::string out;
    for (const auto& g : r.gaps) out += g.guarantee + " -- " + g.reason + "\n";
    return out;
  };
  auto policy = errand::sandbox::policy_from_config(boost::json::object{});
  REQUIRE(policy.has_value());
  policy->network = sdk::NetworkMode::none;

  const std::string missing = "localhost/errand-no-such-image:latest";
  Daemon absent(missing);
  const auto refused = absent.backend->probe(*policy);
  INFO(gaps_of(refused));
  bool named = false;
  for (const auto& g : refused.gaps)
    named = named ||
            (g.guarantee == "the session image" && g.reason.find(missing) != std::string::npos);
  CHECK(named);
  CHECK_FALSE(absent.backend->image_kage_providers().has_value());

  Daemon present;
  CHECK_FALSE(present.backend->image_kage_providers().has_value());  // not probed yet
  const auto accepted = present.backend->probe(*policy);
  // The test image's contract lists no providers (it holds no kage), so an empty list is read.
  const auto providers = present.backend->image_kage_providers();
  REQUIRE(providers.has_value());
  CHECK(providers->empty());
  INFO(gaps_of(accepted));
  for (const auto& g : accepted.gaps) CHECK(g.guarantee != "the session image");
  bool noted = false;
  for (const auto& n : accepted.notes)
    noted = noted || n.find(std::string("image ") + kTestImage) != std::string::npos;
  CHECK(noted);
}

TEST_CASE("the agent's stdio is the container's: what goes in comes back out") {
  Daemon d;
  auto process = d.launch({"cat"});
  const std::string line = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n";
  REQUIRE(::write(process->stdin_fd(), line.data(), line.size()) ==
          static_cast<ssize_t>(line.size()));
  ::close(process->stdin_fd());
  CHECK(read_all(process->stdout_fd()) == line);
  const auto exit = d.run(process->wait());
  REQUIRE(exit.exit_code.has_value());
  CHECK(*exit.exit_code == 0);
}

TEST_CASE("stopping a session goes through podman stop and leaves no container") {
  Daemon d;
  auto process = d.launch({"sleep", "600"});
  const auto name = container_name("live-" + std::to_string(::getpid()) + "-1");
  // The container exists once podman has made it; stop is asked only then.
  for (int i = 0; i < 100 && !d.container_exists(name); ++i) ::usleep(100000);
  REQUIRE(d.container_exists(name));
  const auto started = std::chrono::steady_clock::now();
  const auto exit = d.run(process->stop(std::chrono::seconds(2)));
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(exit.detail << exit.cleanup_detail);
  CHECK(exit.signal.has_value());
  CHECK(exit.cleanup_complete);
  CHECK(took < std::chrono::seconds(30));
  CHECK_FALSE(d.container_exists(name));
}

TEST_CASE("the orphan sweep removes this daemon's containers no session owns, and says which") {
  Daemon d;
  // What a daemon killed with -9 leaves: a container with its labels that no session owns.
  d.spec({"true"});  // takes the name -1, so the orphan is -2 and differs from the other daemon's
  auto orphan = d.launch({"sleep", "600"});
  const auto orphan_name = container_name("live-" + std::to_string(::getpid()) + "-2");
  for (int i = 0; i < 100 && !d.container_exists(orphan_name); ++i) ::usleep(100000);
  REQUIRE(d.container_exists(orphan_name));
  Daemon other;
  auto theirs = other.launch({"sleep", "600"});
  const auto their_name = container_name("live-" + std::to_string(::getpid()) + "-1");
  for (int i = 0; i < 100 && !other.container_exists(their_name); ++i) ::usleep(100000);
  // A restarted daemon: a new backend on the same state directory, with no live session.
  auto log =
      std::make_shared<spdlog::logger>("podman", std::make_shared<spdlog::sinks::null_sink_mt>());
  PodmanBackend restarted(
      d.parts.services(d.io.get_executor(), log,
                       boost::json::object{{"sandbox", boost::json::object{{"image", kTestImage}}}},
                       ERRAND_PODMAN_PLUGIN, d.dir.path() / "state"));
  const auto report = restarted.sweep_orphans();
  std::string details;
  for (const auto& line : report.details) details += line + "\n";
  INFO(details);
  CHECK(report.complete);
  CHECK(report.removed == 1);
  CHECK(details.find(orphan_name) != std::string::npos);
  CHECK_FALSE(d.container_exists(orphan_name));
  // Another daemon's container is not this daemon's to remove.
  CHECK(other.container_exists(their_name));
  other.run(theirs->stop(std::chrono::seconds(1)));
  d.run(orphan->wait());
}

TEST_CASE("a container podman refuses to make fails the launch with podman's own words") {
  const std::string missing = "localhost/errand-no-such-image:latest";
  Daemon absent(missing);
  const auto no_image = absent.run(absent.backend->launch(absent.spec({"true"})));
  REQUIRE_FALSE(no_image.has_value());
  INFO(no_image.error().message);
  CHECK(no_image.error().message.rfind("podman could not create the session's container: ", 0) ==
        0);
  CHECK(no_image.error().message.find(missing + ": image not known") != std::string::npos);

  Daemon d;
  auto spec = d.spec({"true"});
  fs::remove_all(spec.project_dir);
  const auto bad_mount = d.run(d.backend->launch(spec));
  REQUIRE_FALSE(bad_mount.has_value());
  INFO(bad_mount.error().message);
  CHECK(bad_mount.error().message.find("statfs " + spec.project_dir.string() +
                                       ": no such file or directory") != std::string::npos);
  CHECK_FALSE(d.container_exists(container_name(spec.session_id)));
}
