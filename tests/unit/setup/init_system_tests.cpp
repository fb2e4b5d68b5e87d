#include "core/setup/init_system.hpp"

#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>
#include "tests/support/test_paths.hpp"

using namespace errand::setup;
namespace fs = std::filesystem;

namespace {

HostPaths paths_in(const fs::path& root) {
  HostPaths host;
  host.systemd_running = root / "run/systemd/system";
  host.openrc_running = root / "run/openrc";
  host.systemd_unit_vendor = root / "usr/lib/systemd/system/errand.service";
  host.systemd_unit_local = root / "etc/systemd/system/errand.service";
  host.openrc_script = root / "etc/init.d/errand";
  return host;
}

}  // namespace

TEST_CASE("the init system is told by what it leaves in /run") {
  errand::test::TempDir root;
  const auto host = paths_in(root.path());
  CHECK(detect_init(host) == InitSystem::none);
  fs::create_directories(host.openrc_running);
  CHECK(detect_init(host) == InitSystem::openrc);
  fs::create_directories(host.systemd_running);
  CHECK(detect_init(host) == InitSystem::systemd);
}

TEST_CASE("the administrator's copy of the unit is preferred to the package's") {
  errand::test::TempDir root;
  const auto host = paths_in(root.path());
  CHECK_FALSE(installed_systemd_unit(host));
  fs::create_directories(host.systemd_unit_vendor.parent_path());
  errand::test::write_file(host.systemd_unit_vendor, "[Service]\n");
  CHECK(installed_systemd_unit(host) == host.systemd_unit_vendor);
  fs::create_directories(host.systemd_unit_local.parent_path());
  errand::test::write_file(host.systemd_unit_local, "[Service]\n");
  CHECK(installed_systemd_unit(host) == host.systemd_unit_local);
}

TEST_CASE("Delegate= is read from the [Service] section, the last assignment winning") {
  errand::test::TempDir dir;
  const auto unit = dir / "errand.service";
  auto delegates = [&](const std::string& text) {
    errand::test::write_file(unit, text);
    return unit_delegates(unit);
  };
  CHECK(delegates("[Service]\nDelegate=yes\n"));
  CHECK(delegates("[Service]\n  Delegate = true\n"));
  CHECK(delegates("[Service]\nDelegate=memory pids\n"));
  CHECK_FALSE(delegates("[Service]\nDelegate=no\n"));
  CHECK_FALSE(delegates("[Service]\nDelegate=yes\nDelegate=no\n"));
  CHECK_FALSE(delegates("[Unit]\nDelegate=yes\n[Service]\nUser=errand\n"));
  CHECK_FALSE(delegates("[Service]\n# Delegate=yes\n"));
  // The packaged unit.
  CHECK(unit_delegates(errand::test::source_path("packaging/systemd/errand.service")));
}
