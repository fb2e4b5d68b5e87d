#include "plugins/sandbox-podman/impl/podman_info.hpp"

#include <catch2/catch_test_macros.hpp>

#include "tests/unit/sandbox-podman/recorded_podman_info.hpp"

using namespace errand::podman;

TEST_CASE("podman info from a rootless cgroup v1 host reads as rootless v1 without controllers") {
  auto info = parse_podman_info(recorded::kRootlessCgroupV1);
  REQUIRE(info.has_value());
  CHECK(info->version == "4.3.1");
  CHECK(info->rootless);
  CHECK(info->cgroup_version == "v1");
  CHECK(info->cgroup_manager == "cgroupfs");
  CHECK(info->cgroup_controllers.empty());
  CHECK(info->runtime_name == "runc");
  CHECK(info->runtime_path == "/usr/bin/runc");
  CHECK(info->runtime_version == "runc version 1.1.5+ds1");
  CHECK(info->subordinate_uids == 65536);
  CHECK(info->subordinate_gids == 65536);
  CHECK(info->graph_driver == "overlay");
  CHECK(info->event_logger == "file");
  CHECK(info->seccomp_enabled);
  CHECK(info->seccomp_profile_path == "/usr/share/containers/seccomp.json");
}

TEST_CASE("podman info from a cgroup v2 host lists the delegated controllers") {
  auto info = parse_podman_info(recorded::kRootlessCgroupV2);
  REQUIRE(info.has_value());
  CHECK(info->cgroup_version == "v2");
  CHECK(info->has_controller("memory"));
  CHECK(info->has_controller("pids"));
  CHECK(info->has_controller("cpu"));
  CHECK_FALSE(info->has_controller("io"));
}

TEST_CASE("rootful podman info reads as not rootless, with no subordinate mapping") {
  auto info = parse_podman_info(recorded::kRootful);
  REQUIRE(info.has_value());
  CHECK_FALSE(info->rootless);
  CHECK(info->subordinate_uids == 0);
}

TEST_CASE("an account's own id alone is no subordinate range") {
  auto info = parse_podman_info(recorded::kRootlessNoSubordinateIds);
  REQUIRE(info.has_value());
  CHECK(info->subordinate_uids == 0);
  CHECK(info->subordinate_gids == 0);
}

TEST_CASE("podman info that is not JSON, or lacks the host facts, is an error naming why") {
  auto garbage = parse_podman_info("Error: cannot connect");
  REQUIRE_FALSE(garbage.has_value());
  CHECK(garbage.error().message.find("JSON") != std::string::npos);
  auto other = parse_podman_info(R"({"host": {"arch": "amd64"}})");
  REQUIRE_FALSE(other.has_value());
  CHECK(other.error().message.find("host.security.rootless") != std::string::npos);
}
