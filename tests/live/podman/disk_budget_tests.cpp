// The disk budget under podman: measured on the host over the directories the container mounts
// as /workspace and /state, and a session past it stopped (SIGTERM through podman) with the same
// words bailey uses.

#include <signal.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <string>

#include "tests/live/podman/live_daemon.hpp"

using namespace errand::podman;
using namespace errand::podman::live;

namespace {

sdk::LaunchSpec budgeted(Daemon& d, std::string script) {
  auto spec = d.spec({"/bin/sh", "-c", std::move(script)});
  spec.policy.limits.disk_check_max = std::chrono::milliseconds(1000);
  spec.policy.limits.grace = std::chrono::milliseconds(1000);
  return spec;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a podman session that writes past sandbox.disk is stopped, and the exit says why",
          "[live][key:sandbox.disk]") {
  Daemon d;
  auto spec = budgeted(d, "head -c 4194304 /dev/zero > /workspace/blob && exec sleep 60");
  spec.policy.limits.disk_bytes = 1 << 20;
  const auto name = container_name(spec.session_id);
  const auto started = std::chrono::steady_clock::now();
  auto launched = d.run(d.backend->launch(spec));
  INFO((launched ? std::string() : launched.error().message));
  REQUIRE(launched.has_value());
  const auto exit = d.run((*launched)->wait());
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(exit.detail << " / " << exit.cleanup_detail);
  CHECK(exit.limit == sdk::LimitCause::disk);
  CHECK(contains(exit.detail, "stopped: passed its disk budget of 1m (grew by "));
  CHECK(exit.signal == SIGTERM);
  CHECK(exit.cleanup_complete);
  CHECK(took < std::chrono::seconds(30));
  CHECK_FALSE(d.container_exists(name));
}

TEST_CASE("a podman session within its disk budget runs to its end untouched",
          "[live][key:sandbox.disk]") {
  Daemon d;
  auto spec = budgeted(d, "head -c 65536 /dev/zero > /workspace/small && sleep 3 && echo kept");
  spec.policy.limits.disk_bytes = 4 << 20;
  spec.policy.limits.disk_inodes = 50;
  auto launched = d.run(d.backend->launch(spec));
  INFO((launched ? std::string() : launched.error().message));
  REQUIRE(launched.has_value());
  const auto out = read_all((*launched)->stdout_fd());
  const auto exit = d.run((*launched)->wait());
  INFO(exit.detail);
  CHECK(exit.limit == sdk::LimitCause::none);
  CHECK(exit.exit_code == 0);
  CHECK(contains(out, "kept"));
}

TEST_CASE("a podman launch refuses a tree it cannot measure, before any container exists",
          "[live][key:sandbox.diskInodes]") {
  Daemon d;
  auto spec = budgeted(d, "true");
  spec.policy.limits.disk_inodes = 1000;
  fs::create_directories(spec.state_dir / "home" / "shut");
  fs::permissions(spec.state_dir / "home" / "shut", fs::perms::none);
  const auto launched = d.run(d.backend->launch(spec));
  fs::permissions(spec.state_dir / "home" / "shut", fs::perms::owner_all);
  REQUIRE_FALSE(launched.has_value());
  INFO(launched.error().message);
  CHECK(contains(launched.error().message, "disk use cannot be measured"));
  CHECK(contains(launched.error().message, "shut"));
  CHECK_FALSE(d.container_exists(container_name(spec.session_id)));
}
