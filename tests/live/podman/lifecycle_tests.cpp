#include <signal.h>
#include <unistd.h>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <catch2/catch_test_macros.hpp>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-podman/impl/stop_deadlines.hpp"
#include "tests/live/podman/live_daemon.hpp"
#include "tests/support/test_paths.hpp"

// A session's container through the backend itself: launched from a LaunchSpec, its stdio the
// agent's, stopped (SIGTERM, then SIGKILL after the grace) and always gone afterwards; and the
// orphan sweep.

using namespace errand::podman;
using namespace errand::podman::live;
namespace fs = std::filesystem;
namespace sdk = errand::sdk;

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

// The stop is asked the moment launch returns, when `podman start` may not have started the
// container yet: on a loaded host that stop once found nothing running, did nothing, and the
// agent then ran for the whole of sleep 600 (CTest's timeout). The bound is well under that and
// well over a loaded host's slowest podman commands.
TEST_CASE("stopping a session just launched ends it within its grace and leaves no container") {
  Daemon d;
  auto process = d.launch({"sleep", "600"});
  const auto name = container_name("live-" + std::to_string(::getpid()) + "-1");
  const auto started = std::chrono::steady_clock::now();
  const auto exit = d.run(process->stop(std::chrono::seconds(2)));
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(exit.detail << exit.cleanup_detail << "\nlog:\n" << d.log_text());
  CHECK(exit.signal.has_value());
  CHECK(exit.cleanup_complete);
  CHECK(took < std::chrono::seconds(60));
  CHECK_FALSE(d.container_exists(name));
  // sleep ends on SIGTERM, so nothing was escalated, and the log does not claim otherwise.
  CHECK(d.log_text().find("did not finish within") == std::string::npos);
}

TEST_CASE("stopping a session already running goes the same way") {
  Daemon d;
  auto process = d.launch({"sh", "-c", "echo up; exec sleep 600"});
  const auto name = container_name("live-" + std::to_string(::getpid()) + "-1");
  // Running for certain: the agent has written.
  char c = 0;
  REQUIRE(::read(process->stdout_fd(), &c, 1) == 1);
  const auto started = std::chrono::steady_clock::now();
  const auto exit = d.run(process->stop(std::chrono::seconds(2)));
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(exit.detail << exit.cleanup_detail << "\nlog:\n" << d.log_text());
  REQUIRE(exit.signal.has_value());
  CHECK(*exit.signal == SIGTERM);
  CHECK(exit.cleanup_complete);
  CHECK(took < std::chrono::seconds(60));
  CHECK_FALSE(d.container_exists(name));
  CHECK(d.log_text().find("did not finish within") == std::string::npos);
}

TEST_CASE("an agent that ignores SIGTERM is killed after the grace, and the log says so") {
  Daemon d;
  auto process = d.launch({"sh", "-c", "trap '' TERM; echo up; while :; do sleep 1; done"});
  const auto name = container_name("live-" + std::to_string(::getpid()) + "-1");
  char c = 0;
  REQUIRE(::read(process->stdout_fd(), &c, 1) == 1);  // the trap is set
  const auto grace = std::chrono::seconds(2);
  const auto started = std::chrono::steady_clock::now();
  const auto exit = d.run(process->stop(grace));
  const auto took = std::chrono::steady_clock::now() - started;
  const auto log = d.log_text();
  INFO(exit.detail << exit.cleanup_detail << "\nlog:\n" << log);
  // It outlived the grace, so it ended by SIGKILL, not SIGTERM.
  REQUIRE(exit.signal.has_value());
  CHECK(*exit.signal == SIGKILL);
  CHECK(took >= grace);
  // The grace, then podman commands of a loaded host: far under the last deadline's sum.
  CHECK(took < grace + kEndAfterKillDeadline);
  CHECK(exit.cleanup_complete);
  CHECK_FALSE(d.container_exists(name));
  CHECK(
      log.find("session container " + name +
               ": the agent's end after SIGTERM did not finish within 2000 ms; sending SIGKILL") !=
      std::string::npos);
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
                       errand::test::build_path(ERRAND_PODMAN_PLUGIN), d.dir.path() / "state"));
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
  // Without a disk budget, so that podman itself meets the missing mount source (with one, the
  // baseline refuses the launch first: disk_budget_tests.cpp).
  spec.policy.limits.disk_bytes = 0;
  spec.policy.limits.disk_inodes = 0;
  fs::remove_all(spec.project_dir);
  const auto bad_mount = d.run(d.backend->launch(spec));
  REQUIRE_FALSE(bad_mount.has_value());
  INFO(bad_mount.error().message);
  CHECK(bad_mount.error().message.find("statfs " + spec.project_dir.string() +
                                       ": no such file or directory") != std::string::npos);
  CHECK_FALSE(d.container_exists(container_name(spec.session_id)));
}
