#include "tests/vm/podman_scenario.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>

#include "core/setup/setup_config.hpp"
#include "tests/support/test_paths.hpp"
#include "tests/vm/session_limits.hpp"

namespace errand::test::vm {

namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* kImage = "localhost/errand-vm:latest";
constexpr const char* kAgentInImage = "/usr/local/bin/fake-acp-agent";

// podman as errand, the way sandbox-podman runs it: an environment built from nothing, errand's
// own containers.conf, and the runtime directory prepare-podman-account mounted.
std::string as_errand_podman(const std::string& arguments) {
  return "cd / && runuser -u errand -- env -i HOME=\"$(getent passwd errand | cut -d: -f6)\" "
         "PATH=/usr/sbin:/usr/bin:/sbin:/bin XDG_RUNTIME_DIR=/run/user/$(id -u errand) "
         "CONTAINERS_CONF=/usr/share/errand/plugins/sandbox-podman/containers.conf "
         "podman --log-level=error " +
         arguments;
}

// The journal of the service's current run alone.
std::string this_run_journal(VmGuest& guest) {
  return guest.must(
      "journalctl -u errand --no-pager -o cat "
      "_SYSTEMD_INVOCATION_ID=$(systemctl show -p InvocationID --value errand)");
}

}  // namespace

// The root the VM image carries with the static scripted agent added, imported with the
// errand.contract label as image/build imports an image; then errand's pause process is ended,
// as image/build ends it.
void import_session_image(VmGuest& guest) {
  guest.must(
      "set -e; w=$(mktemp -d /var/tmp/session-image.XXXXXX); "
      "mv /var/lib/errand-vm/session-root.tar \"$w/root.tar\"; "
      "install -D -m 0755 /usr/local/lib/errand-test/fake-acp-agent \"$w/add" +
          std::string(kAgentInImage) + "\"; tar -rf \"$w/root.tar\" -C \"$w/add\" ." +
          kAgentInImage + "; chmod 0755 \"$w\"; chmod 0644 \"$w/root.tar\"; " +
          as_errand_podman("import --quiet --change WORKDIR=/workspace "
                           "--change 'LABEL=errand.contract={\"version\":1,\"providers\":[]}' "
                           "\"$w/root.tar\" ") +
          kImage + " >/dev/null; rm -rf \"$w\"; " +
          // As image/build does: the pause process that import started is not the service's.
          "/usr/share/errand/scripts/end-podman-pause errand",
      600s);
}

// The configuration configure_for_fakes installed, on podman with the session image; and what
// `errand setup podman` does before its image build, by the same packaged script.
void configure_podman(VmGuest& guest, const GuestShare& share) {
  const auto prepare = "/usr/share/errand/scripts/prepare-podman-account errand";
  const auto first = guest.must(prepare, 120s);
  INFO("prepare-podman-account:\n" << first);
  CHECK(first.find("done: ") != std::string::npos);
  const auto second = guest.must(prepare, 120s);
  INFO("prepare-podman-account again:\n" << second);
  CHECK(second.find("done: ") == std::string::npos);
  auto config =
      setup::read_jsonc_object(share.path() / "config.json", "reading the installed configuration");
  auto& sandbox = config["sandbox"].as_object();
  sandbox["backend"] = "podman";
  sandbox["image"] = kImage;
  config["agent"].as_object()["command"] = json::array{kAgentInImage};
  test::write_file(share.path() / "config-podman.json", json::serialize(config));
  guest.must(
      "install -m 0640 -o root -g errand /mnt/errand-share/config-podman.json "
      "/etc/errand/config.json && errand config check /etc/errand/config.json");
}

void serve_under_podman(VmGuest& guest, e2e::E2eHarness& harness) {
  guest.must("systemctl reset-failed errand; systemctl start errand");
  // Ready, or failed (a refusal at start ends the wait at once).
  wait_in_guest(guest,
                "{ journalctl -u errand -o cat _SYSTEMD_INVOCATION_ID=$(systemctl show -p "
                "InvocationID --value errand) | grep -q 'the chat connection is ready' || "
                "systemctl is-failed -q errand; }",
                240s);
  const auto report = this_run_journal(guest);
  INFO("journal:\n" << report);
  REQUIRE(report.find("the chat connection is ready") != std::string::npos);
  CHECK(report.find("sandbox backend: podman") != std::string::npos);
  CHECK(report.find("every configured guarantee is enforced on this host") != std::string::npos);

  const auto thread = harness.post("demo: say hello from a podman container");
  REQUIRE(harness.wait_for_text(thread, "hello from a podman container", 240s));
  const auto container = line_of(guest.must(as_errand_podman(
      "ps --filter label=errand.system=errand --format '{{.ID}}' --no-trunc | head -n1")));
  REQUIRE_FALSE(container.empty());
  const auto cgroup = line_of(guest.must("find /sys/fs/cgroup -type d -name '*" + container +
                                         "*' ! -name '*conmon*' | head -n1"));
  INFO("the container " << container);
  REQUIRE_FALSE(cgroup.empty());
  check_configured_limits(guest, cgroup);
  check_limits_enforced(guest, harness, thread, cgroup);

  // systemctl stop: no process of the account is left, podman's pause process included.
  guest.must("systemctl stop errand", 120s);
  CHECK(guest.must("pgrep -u errand -l || true") == "");
}

}  // namespace errand::test::vm
