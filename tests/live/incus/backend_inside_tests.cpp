// An incus session from the inside, through launch(): a whole Linux system whose PID 1 is
// systemd and settles, where the agent runs nested containers of its own with rootless and root
// podman and with Docker, builds a Docker image, mounts a FUSE filesystem and enables a systemd
// service of its own, and has the image's toolchain.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>
#include <string_view>

#include "tests/live/incus/live_incus_daemon.hpp"
#include "tests/live/toolchain/toolchain_check.hpp"

using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;

namespace {

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

TEST_CASE("the agent of an incus session builds a Docker image from files, on overlay2", "[live]") {
  Daemon daemon;
  // No registry: the base is the image's busybox root, and the build copies a file of the
  // agent's and runs a step in it. The legacy builder, which Docker 20.10 uses by default, runs
  // the RUN step in a container of its own.
  const auto ended = run_script(
      daemon,
      std::string(kAwaitBoot) +
          "dir=$(mktemp -d) && cd \"$dir\" && echo from-the-agent >hello.txt && "
          "printf 'FROM nested\\nCOPY hello.txt /hello.txt\\n"
          "RUN [\"/bin/busybox\", \"sh\", \"-c\", \"/bin/busybox tr a-z A-Z </hello.txt "
          ">/shout.txt\"]\\n' >Dockerfile && "
          "sudo -n docker import /usr/share/errand/nested-image.tar nested >/dev/null && "
          "sudo -n docker build --quiet --tag built . >/dev/null && "
          "echo built:$(sudo -n docker run --rm built /bin/busybox cat /hello.txt /shout.txt | "
          "tr '\\n' ,); "
          "echo driver:$(sudo -n docker info --format '{{.Driver}}')");
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("built:from-the-agent,FROM-THE-AGENT,\n"));
  // Not btrfs, whose subvolume per layer the guest may not make (docs/sandbox-incus.md).
  CHECK_THAT(ended.out, ContainsSubstring("driver:overlay2\n"));
  check_ended_cleanly(ended);
}

TEST_CASE("the agent of an incus session runs a nested container with podman as root", "[live]") {
  Daemon daemon;
  // After the boot, as the Docker cases: the agent starts while the guest boots, and twice under
  // CI's load an image imported then was gone for the next command ("Trying to pull
  // localhost/nested:latest"), most likely under podman's boot-time clean-up of root's store
  // (its tmpfiles rules, podman-clean-transient).
  const auto ended = run_script(
      daemon, std::string(kAwaitBoot) +
                  "sudo -n podman import --quiet /usr/share/errand/nested-image.tar "
                  "localhost/nested >/dev/null && "
                  "sudo -n podman run --rm localhost/nested /bin/busybox sh -c "
                  "'echo rootful:$(id -u):$(cat /proc/1/comm)' && "
                  "echo driver:$(sudo -n podman info --format '{{.Store.GraphDriverName}}')");
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("rootful:0:busybox\n"));
  CHECK_THAT(ended.out, ContainsSubstring("driver:overlay\n"));
  check_ended_cleanly(ended);
}

TEST_CASE("the agent of an incus session mounts a FUSE filesystem of its own", "[live]") {
  Daemon daemon;
  // fuse-overlayfs as the agent, through fusermount3: a write lands in the upper directory, and
  // the kernel lists the mount as a FUSE one until the agent unmounts it.
  const auto ended =
      run_script(daemon,
                 "dir=$(mktemp -d) && cd \"$dir\" && mkdir lower upper work merged && "
                 "echo below >lower/seen && "
                 "fuse-overlayfs -o lowerdir=lower,upperdir=upper,workdir=work merged && "
                 "echo type:$(awk -v m=\"$dir/merged\" '$2 == m {print $3}' /proc/mounts) && "
                 "echo merged:$(cat merged/seen) && echo written >merged/new && "
                 "echo upper:$(cat upper/new) && fusermount3 -u merged && "
                 "echo after:$(awk -v m=\"$dir/merged\" '$2 == m {print $3}' /proc/mounts)");
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("type:fuse.fuse-overlayfs\n"));
  CHECK_THAT(ended.out, ContainsSubstring("merged:below\n"));
  CHECK_THAT(ended.out, ContainsSubstring("upper:written\n"));
  CHECK_THAT(ended.out, ContainsSubstring("after:\n"));
  check_ended_cleanly(ended);
}

TEST_CASE("the agent of an incus session enables a systemd service, which the guest's systemd runs",
          "[live]") {
  Daemon daemon;
  // A unit the agent writes and enables through sudo: systemd starts it, records it as enabled
  // and active, and what it ran left its mark.
  const auto ended = run_script(
      daemon, std::string(kAwaitBoot) +
                  "printf '[Unit]\\nDescription=errand live test\\n[Service]\\nType=oneshot\\n"
                  "RemainAfterExit=yes\\nExecStart=/bin/sh -c \"echo ran-by-pid-$$PPID "
                  ">/var/tmp/unit-ran\"\\n[Install]\\nWantedBy=multi-user.target\\n' | "
                  "sudo -n tee /etc/systemd/system/errand-live.service >/dev/null && "
                  "sudo -n systemctl enable --now --quiet errand-live.service && "
                  "echo enabled:$(sudo -n systemctl is-enabled errand-live.service) && "
                  "echo active:$(sudo -n systemctl is-active errand-live.service) && "
                  "echo mark:$(cat /var/tmp/unit-ran)");
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("enabled:enabled\n"));
  CHECK_THAT(ended.out, ContainsSubstring("active:active\n"));
  // The service's shell is a child of systemd, PID 1 of the guest.
  CHECK_THAT(ended.out, ContainsSubstring("mark:ran-by-pid-1\n"));
  check_ended_cleanly(ended);
}

TEST_CASE("the agent of an incus session has the session image's toolchain, each tool used inside",
          "[live]") {
  Daemon daemon;
  const auto ended = run_script(daemon, errand::test::toolchain_script());
  INFO(ended.err << ended.exit.detail);
  errand::test::check_toolchain_output(ended.out);
  check_ended_cleanly(ended);
}
