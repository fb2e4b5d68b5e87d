// An incus session from the inside, through launch(): a whole Linux system whose PID 1 is
// systemd and settles, where the agent runs nested containers of its own with rootless podman and
// with Docker.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>
#include <string_view>

#include "tests/live/incus/live_incus_daemon.hpp"

using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;

namespace {

// The session starts as soon as LXC runs the container; systemd's own socket comes a moment
// later, and until then systemctl says offline (or nothing). This waits for the boot to settle
// and leaves systemd's answer in $state. As root through sudo: the image has no D-Bus, which
// systemctl needs as any other account.
constexpr std::string_view kAwaitBoot =
    "for i in $(seq 240); do "
    "  state=$(sudo -n timeout 120 systemctl is-system-running --wait 2>/dev/null); "
    "  case \"$state\" in ''|offline) sleep 0.5 ;; *) break ;; esac; "
    "done; ";

// A session whose agent is the shell script, run to its end.
auto run_script(Daemon& daemon, const std::string& script) {
  auto spec = daemon.spec({"/bin/sh", "-c", script});
  daemon.probe(spec.policy);
  return run_to_end(daemon, std::move(spec));
}

// The script ended with 0 and the instance was deleted (the caller's INFO holds its output).
template <class Ended>
void check_ended_cleanly(const Ended& ended) {
  CHECK(ended.exit.exit_code == 0);
  CHECK(ended.exit.cleanup_complete);
}

}  // namespace

TEST_CASE("an incus session's PID 1 is systemd, and the guest's boot settles as running",
          "[live]") {
  Daemon daemon;
  // Only root may read PID 1's exe.
  const auto ended = run_script(
      daemon,
      std::string("echo pid1:$(sudo -n readlink /proc/1/exe); ") + std::string(kAwaitBoot) +
          "echo state:$state; "
          "echo failed:$(sudo -n systemctl --failed --no-legend --plain | awk '{print $1}')");
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("pid1:/usr/lib/systemd/systemd\n"));
  // running, not degraded: the agent image's units all start in an unprivileged guest without a
  // NIC. A unit that fails is named on the failed: line.
  CHECK_THAT(ended.out, ContainsSubstring("state:running\n"));
  CHECK_THAT(ended.out, ContainsSubstring("failed:\n"));
  check_ended_cleanly(ended);
}

TEST_CASE("the agent of an incus session runs a nested container with rootless podman", "[live]") {
  Daemon daemon;
  // The image carries a busybox root filesystem to import; podman's default network there
  // is the guest's own, which is only loopback without a NIC.
  const auto ended = run_script(
      daemon,
      "podman import --quiet /usr/share/errand/nested-image.tar localhost/nested >/dev/null && "
      "podman run --rm localhost/nested /bin/busybox sh -c "
      "'echo nested:$(id -u):$(cat /proc/1/comm)'");
  INFO(ended.out << ended.err << ended.exit.detail);
  // uid 0 and PID 1 of the nested container's own namespaces, inside the agent's.
  CHECK_THAT(ended.out, ContainsSubstring("nested:0:busybox\n"));
  check_ended_cleanly(ended);
}

TEST_CASE("the agent of an incus session runs a Docker container, dockerd started on first use",
          "[live]") {
  Daemon daemon;
  // The agent image enables docker.socket alone (image/guest/customize): dockerd is not running
  // until the first docker command, which starts it (and containerd) under the guest's systemd,
  // inside errand's guest filter. The container is on Docker's own bridge, as an agent's would be.
  const auto ended = run_script(
      daemon, std::string(kAwaitBoot) +
                  "echo before:$(sudo -n systemctl is-active docker.service); "
                  "sudo -n docker import /usr/share/errand/nested-image.tar nested >/dev/null && "
                  "sudo -n docker run --rm nested /bin/busybox sh -c "
                  "'echo docker:$(id -u):$(cat /proc/1/comm):$(ls /sys/class/net | tr \"\\n\" ,)'; "
                  "echo after:$(sudo -n systemctl is-active docker.service)");
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("before:inactive\n"));
  // root and PID 1 of the container's own namespaces, with an interface on Docker's bridge.
  CHECK_THAT(ended.out, ContainsSubstring("docker:0:busybox:eth0,lo,\n"));
  CHECK_THAT(ended.out, ContainsSubstring("after:active\n"));
  check_ended_cleanly(ended);
}
