// errand under OpenRC on Debian 12 with cgroup v2 alone (tests/vm/README.md): the package's init
// script starts and stops the daemon through supervise-daemon and errand-supervised, in the
// subtree `errand up --cgroup-only --join` makes. One boot, the scenarios in sequence.

#include <catch2/catch_test_macros.hpp>

#include "tests/vm/guest_scenario.hpp"
#include "tests/vm/session_limits.hpp"

namespace errand::test::vm {
namespace {

using namespace std::chrono_literals;

// The subtree `errand up` makes under cgroup v2 without systemd (docs/service.md).
constexpr const char* kSubtree = "/sys/fs/cgroup/errand-daemon";
constexpr const char* kLog = "/var/log/errand/errand.log";

std::string daemon_pid(VmGuest& guest) {
  return line_of(guest.must("pgrep -u errand -x errand || true"));
}

}  // namespace

TEST_CASE("OpenRC guest: the init script, errand up --cgroup-only --join, and the session limits",
          "[vm]") {
  GuestShare share;
  auto guest = boot_guest(GuestInit::openrc, share);
  check_booted(guest);
  CHECK(guest.must("test -d /run/openrc && echo openrc") == "openrc\n");

  const auto setup = install_and_set_up(guest, share);
  CHECK(setup.find("done: ") != std::string::npos);
  CHECK(guest.must("rc-update show default | grep -c '^ *errand '") == "1\n");

  // errand up --cgroup-only --join: the subtree, the account's, with the daemon's and the
  // sessions' children, and the process named moved into supervisor.
  guest.must("setsid -f sleep 600 </dev/null >/dev/null 2>&1");
  const auto sleeper = line_of(guest.must("pgrep -x -n sleep"));
  const auto joined = guest.must("errand up --cgroup-only --join " + sleeper);
  INFO("errand up --cgroup-only:\n" << joined);
  CHECK(guest.must("cat /proc/" + sleeper + "/cgroup") == "0::/errand-daemon/supervisor\n");
  for (const char* dir : {"", "/supervisor", "/sessions"})
    CHECK(guest.must(std::string("stat -c %U ") + kSubtree + dir) == "errand\n");
  const auto controllers =
      guest.must(std::string("cat ") + kSubtree + "/sessions/cgroup.controllers");
  for (const char* controller : {"memory", "pids", "cpu"})
    CHECK(controllers.find(controller) != std::string::npos);
  guest.must("kill " + sleeper);

  e2e::E2eHarness harness;
  configure_for_fakes(guest, share, harness);

  // rc-service errand start: supervise-daemon, the wrapper, and the daemon as errand in
  // supervisor; its log in /var/log/errand/errand.log.
  guest.must("rc-service errand start", 120s);
  const bool ready =
      wait_in_guest(guest, std::string("grep -q 'the chat connection is ready' ") + kLog, 180s);
  INFO("log:\n" << guest.run(std::string("cat ") + kLog).output);
  REQUIRE(ready);
  const auto pid = daemon_pid(guest);
  REQUIRE_FALSE(pid.empty());
  CHECK(guest.must("cat /proc/" + pid + "/cgroup") == "0::/errand-daemon/supervisor\n");
  CHECK(guest.must(std::string("cat ") + kLog).find("every configured guarantee is enforced") !=
        std::string::npos);

  // A session, its cgroup under sessions with the configured limits.
  const auto thread = harness.post("demo: say hello from OpenRC");
  REQUIRE(harness.wait_for_text(thread, "hello from OpenRC", 180s));
  const auto cgroup = line_of(
      guest.must(std::string("ls -d ") + kSubtree + "/sessions/errand-* 2>/dev/null | head -n1"));
  REQUIRE_FALSE(cgroup.empty());
  check_configured_limits(guest, cgroup);

  // rc-service errand stop with the session running: no process of the account is left, and
  // nothing in the subtree.
  guest.must("rc-service errand stop", 120s);
  CHECK(guest.must("pgrep -u errand -l || true") == "");
  CHECK(guest.must(std::string("cat ") + kSubtree + "/supervisor/cgroup.procs") == "");
  CHECK(guest.must(std::string("cat ") + kSubtree + "/sessions/" + "cgroup.procs") == "");
  CHECK(guest.must("cat $(ls -d " + std::string(kSubtree) +
                   "/sessions/errand-*/cgroup.procs 2>/dev/null) /dev/null") == "");

  // A configuration errand refuses (exit 2): the wrapper stops its supervisor instead of
  // letting it respawn, and says why.
  guest.must("echo '{\"chat\": {}}' >/etc/errand/config.json");
  guest.run("rc-service errand start", 120s);
  REQUIRE(wait_in_guest(guest, std::string("grep -q 'errand exited with 2' ") + kLog, 60s));
  guest.must("sleep 8");  // past respawn_delay=5
  CHECK(daemon_pid(guest).empty());
  CHECK(guest.run("rc-service errand status").output.find("stopped") != std::string::npos);
}

}  // namespace errand::test::vm
