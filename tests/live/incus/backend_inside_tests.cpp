// An incus session from the inside, through launch(): a whole Linux system whose PID 1 is
// systemd and settles, where the agent runs a nested container of its own with rootless podman.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "tests/live/incus/live_incus_daemon.hpp"

using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("an incus session's PID 1 is systemd, and the guest's boot settles as running",
          "[live]") {
  Daemon daemon;
  // The session starts as soon as LXC runs the container; systemd's own socket comes a moment
  // later, and until then systemctl says offline (or nothing). As root through sudo: the test
  // image has no D-Bus, which systemctl needs as any other account, and only root may read
  // PID 1's exe.
  auto spec = daemon.spec(
      {"/bin/sh", "-c",
       "echo pid1:$(sudo -n readlink /proc/1/exe); "
       "for i in $(seq 240); do "
       "  state=$(sudo -n timeout 120 systemctl is-system-running --wait 2>/dev/null); "
       "  case \"$state\" in ''|offline) sleep 0.5 ;; *) break ;; esac; "
       "done; echo state:$state; "
       "echo failed:$(sudo -n systemctl --failed --no-legend --plain | awk '{print $1}')"});
  daemon.probe(spec.policy);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("pid1:/usr/lib/systemd/systemd\n"));
  // running, not degraded: the test image's units all start in an unprivileged guest without a
  // NIC. A unit that fails is named on the failed: line.
  CHECK_THAT(ended.out, ContainsSubstring("state:running\n"));
  CHECK_THAT(ended.out, ContainsSubstring("failed:\n"));
  CHECK(ended.exit.exit_code == 0);
  CHECK(ended.exit.cleanup_complete);
}

TEST_CASE("the agent of an incus session runs a nested container with rootless podman", "[live]") {
  Daemon daemon;
  // The test image carries a busybox root filesystem to import; podman's default network there
  // is the guest's own, which is only loopback without a NIC.
  auto spec = daemon.spec(
      {"/bin/sh", "-c",
       "podman import --quiet /usr/share/errand/nested-image.tar localhost/nested >/dev/null && "
       "podman run --rm localhost/nested /bin/busybox sh -c "
       "'echo nested:$(id -u):$(cat /proc/1/comm)'"});
  daemon.probe(spec.policy);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  // uid 0 and PID 1 of the nested container's own namespaces, inside the agent's.
  CHECK_THAT(ended.out, ContainsSubstring("nested:0:busybox\n"));
  CHECK(ended.exit.exit_code == 0);
  CHECK(ended.exit.cleanup_complete);
}
