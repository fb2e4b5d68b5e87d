// errand on Debian 12 with systemd (tests/vm/README.md), in two guests: a newcomer's first run of
// README's command, and the package as an operator runs it (installed with apt, `errand setup
// bailey`, the systemd unit, cgroup v2 delegation, and the sessions' limits as the kernel
// enforces them there). Each boot's scenarios run in sequence inside it, each building on the
// state the one before left. Two guests rather than one: a failure names its scenario.
// scripts/test boots them one after another (emulated guests side by side starved the
// newcomer's agent of CPU on a slower host).

#include <catch2/catch_test_macros.hpp>

#include "tests/vm/guest_scenario.hpp"
#include "tests/vm/newcomer_scenario.hpp"
#include "tests/vm/podman_scenario.hpp"
#include "tests/vm/session_limits.hpp"

namespace errand::test::vm {
namespace {

using namespace std::chrono_literals;

// Where systemd puts the service's delegated subtree; the daemon runs in its child supervisor.
constexpr const char* kServiceCgroup = "/sys/fs/cgroup/system.slice/errand.service";

std::string journal(VmGuest& guest) {
  return guest.must("journalctl -u errand --no-pager -o cat");
}

// The session cgroup bailey made beside supervisor (errand-<session id>), if one is there.
std::string session_cgroup(VmGuest& guest) {
  return line_of(
      guest.must(std::string("ls -d ") + kServiceCgroup + "/errand-* 2>/dev/null | head -n1"));
}

// A start that ends in an exit needing an operator (2, 3 or 4) is not restarted
// (RestartPreventExitStatus): the unit stays failed past RestartSec=5 with no restart counted.
void check_not_restarted_after(VmGuest& guest, int status) {
  INFO("a start ending in exit " << status);
  guest.run("systemctl reset-failed errand; systemctl start errand");
  REQUIRE(wait_in_guest(
      guest,
      "[ \"$(systemctl show -p ExecMainStatus --value errand)\" = " + std::to_string(status) + " ]",
      90s));
  guest.must("sleep 7");
  CHECK(guest.must("systemctl show -p NRestarts --value errand") == "0\n");
  CHECK(guest.must("systemctl show -p ActiveState --value errand") == "failed\n");
}

}  // namespace

TEST_CASE("systemd guest: README's command for a newcomer, with each provider's key", "[vm]") {
  GuestShare share;
  auto guest = boot_guest(GuestInit::systemd, share, {{kDefaultWebPort, kDefaultWebPort}});
  check_booted(guest);

  // As a newcomer finds the machine: nothing of errand's on it, README's one command for the
  // package, the page it prints opened in a browser, a session answered by the bundled agent for
  // the key; then the same command again with the other provider's key.
  e2e::E2eHarness newcomer_fakes;
  newcomer_first_session(guest, newcomer_fakes, kAnthropicKey);
  newcomer_first_session(guest, newcomer_fakes, kOpenAiKey);

  // The other way README names, for hosts without systemd, is refused here and points at the
  // user scope.
  const auto joined = guest.run("errand up --cgroup-only --account ops --join $$");
  INFO("errand up --cgroup-only --join under systemd:\n" << joined.output);
  CHECK(joined.exit_code != 0);
  CHECK(joined.output.find("systemd-run --user --scope -p Delegate=yes errand run") !=
        std::string::npos);
}

TEST_CASE("systemd guest: the package, errand setup bailey, the unit, cgroup v2 and the limits",
          "[vm]") {
  GuestShare share;
  auto guest = boot_guest(GuestInit::systemd, share);
  check_booted(guest);

  const auto setup = install_and_set_up(guest, share);
  CHECK(setup.find("done: enabled errand.service") != std::string::npos);
  CHECK(guest.must("systemctl is-enabled errand") == "enabled\n");

  e2e::E2eHarness harness;
  configure_for_fakes(guest, share, harness);

  // systemctl start: the daemon runs as errand in the delegated subtree's supervisor child, and
  // the journal holds its startup report.
  guest.must("systemctl start errand");
  const bool ready = wait_in_guest(
      guest, "journalctl -u errand -o cat | grep -q 'the chat connection is ready'", 180s);
  INFO("journal:\n" << journal(guest));
  REQUIRE(ready);
  const auto report = journal(guest);
  CHECK(report.find("sandbox backend: bailey") != std::string::npos);
  CHECK(report.find("every configured guarantee is enforced on this host") != std::string::npos);
  const auto main_pid = line_of(guest.must("systemctl show -p MainPID --value errand"));
  CHECK(guest.must("ps -o user= -p " + main_pid) == "errand\n");
  CHECK(guest.must("cat /proc/" + main_pid + "/cgroup") ==
        "0::/system.slice/errand.service/supervisor\n");
  CHECK(guest.must(std::string("stat -c %U ") + kServiceCgroup) == "errand\n");

  // A session served end to end, in a cgroup of its own beside supervisor, with the limits.
  const auto thread = harness.post("demo: say hello from inside the sandbox");
  REQUIRE(harness.wait_for_text(thread, "hello from inside the sandbox", 180s));
  const auto cgroup = session_cgroup(guest);
  REQUIRE_FALSE(cgroup.empty());
  check_configured_limits(guest, cgroup);
  CHECK(guest.must("stat -c %U " + cgroup) == "errand\n");
  check_limits_enforced(guest, harness, thread, cgroup);

  // kill -9 of the main process: systemd restarts the unit (exit 1's policy), the session's
  // sandbox went with the old daemon, and the thread is served again by the new one.
  const auto old_pid = line_of(guest.must("systemctl show -p MainPID --value errand"));
  guest.must("kill -9 " + old_pid);
  REQUIRE(wait_in_guest(guest,
                        "[ \"$(systemctl show -p NRestarts --value errand)\" = 1 ] && "
                        "systemctl is-active -q errand",
                        120s));
  CHECK(line_of(guest.must("systemctl show -p MainPID --value errand")) != old_pid);
  REQUIRE(wait_in_guest(guest,
                        "[ $(journalctl -u errand -o cat | grep -c 'the chat connection is ready') "
                        "-ge 2 ]",
                        180s));
  harness.post("say adopted after the restart", thread);
  CHECK(harness.wait_for_text(thread, "adopted after the restart", 180s));

  // Disk: a session that writes past its budget is stopped, and the thread is told which limit
  // stopped it; the next message, once that session has ended, starts a new one.
  const auto count_ended = "journalctl -u errand -o cat | grep -c 'session .*: ended (' || true";
  const auto ended_before = line_of(guest.must(count_ended));
  // Twice the budget, in files half the size sandbox.fileMax allows.
  const auto file_mib = kFileMaxMib / 2;
  harness.post("run for i in $(seq " + std::to_string(kDiskBudgetMib * 2 / file_mib) +
                   "); do dd if=/dev/zero of=fill$i bs=1M count=" + std::to_string(file_mib) +
                   " 2>/dev/null; done",
               thread);
  CHECK(harness.wait_for_text(thread, "the session stopped at a limit", 120s));
  INFO("thread:\n" << harness.bot_text(thread));
  CHECK(harness.bot_text(thread).find("passed its disk budget of " +
                                      std::to_string(kDiskBudgetMib) + "m") != std::string::npos);
  CHECK(guest.must("journalctl -u errand -o cat").find("passed its disk budget of") !=
        std::string::npos);
  REQUIRE(wait_in_guest(guest, std::string("[ $(") + count_ended + ") -gt " + ended_before + " ]",
                        60s));
  harness.post("say back after the disk stop", thread);
  CHECK(harness.wait_for_text(thread, "back after the disk stop", 180s));

  // systemctl stop, with a session running: nothing of errand's is left, no process of the
  // account and no cgroup.
  REQUIRE_FALSE(session_cgroup(guest).empty());
  guest.must("systemctl stop errand", 120s);
  CHECK(guest.must("pgrep -u errand -l || true") == "");
  CHECK(guest.run(std::string("test -e ") + kServiceCgroup).exit_code != 0);
  CHECK(guest.must("systemctl show -p ActiveState --value errand") == "inactive\n");

  // Exit 4, another daemon holding the state directory: the lock a daemon takes, held here by
  // flock(1) as errand, is refused without a restart.
  guest.must(
      "setsid -f runuser -u errand -- flock /var/lib/errand/errand.lock sleep 600 "
      "</dev/null >/dev/null 2>&1");
  REQUIRE(wait_in_guest(guest, "pgrep -u errand -x sleep >/dev/null", 30s));
  check_not_restarted_after(guest, 4);
  CHECK(journal(guest).find("already serves /var/lib/errand: it holds") != std::string::npos);
  guest.must("pkill -u errand -x sleep; sleep 1");

  // The same service on podman. Exit 3 first, a guarantee it cannot keep: the session image is
  // not in errand's store yet, and the probe says so.
  configure_podman(guest, share);
  check_not_restarted_after(guest, 3);
  CHECK(journal(guest).find("is not in errand's podman store") != std::string::npos);
  // With the image, the limits apply to the container under v2 as well.
  import_session_image(guest);
  serve_under_podman(guest, harness);

  // Exit 2, a configuration errand refuses.
  guest.must("echo '{\"chat\": {}}' >/etc/errand/config.json");
  check_not_restarted_after(guest, 2);
}

}  // namespace errand::test::vm
