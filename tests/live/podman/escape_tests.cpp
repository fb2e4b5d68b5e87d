#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-podman/impl/host_probe.hpp"
#include "plugins/sandbox-podman/impl/podman_backend.hpp"
#include "plugins/sandbox-podman/impl/run_plan.hpp"
#include "tests/live/escape/host_endpoints.hpp"
#include "tests/live/podman/live_podman.hpp"
#include "tests/live/podman/probe_container.hpp"

// A session's container from the inside: who the agent is, and the one way out under the broker.
// The escape attempts every backend shares (syscalls, host paths, writes) are in
// tests/live/escape/, run here through podman_escape_backend.cpp.

using namespace errand::podman;
using namespace errand::podman::live;
using errand::escape_live::EchoBroker;
using errand::escape_live::host_address;
using errand::escape_live::HostListener;
namespace fs = std::filesystem;
namespace sdk = errand::sdk;

TEST_CASE("a session's container runs true, exits 0 and is removed") {
  ProbeContainer c;
  const auto out = c.run({"true"});
  INFO(out.err);
  CHECK(out.exit_code == 0);
  auto exists =
      run_podman(c.env, {"container", "exists", container_name(c.spec.session_id)}, kRunTimeout);
  REQUIRE(exists.has_value());
  CHECK(exists->exit_code == 1);
}

TEST_CASE(
    "without the broker errand-relay is PID 1 and the agent its child, both under errand's "
    "filter") {
  ProbeContainer c;
  const std::string count = "grep Seccomp_filters /proc/self/status";
  // The same image under podman's profile alone, without errand-relay: how many filters the
  // container starts with here (the test's own process may already run under some).
  auto bare =
      run_podman(c.env,
                 {"--log-level=error", "run", "--rm", "--pull=never", "--network=none",
                  "--userns=keep-id", "--security-opt", "no-new-privileges", "--security-opt",
                  "seccomp=" + c.host.seccomp_profile.string(), kTestImage, "sh", "-c", count},
                 kRunTimeout);
  REQUIRE(bare.has_value());
  INFO(bare->out << bare->err);
  REQUIRE(bare->exit_code == 0);
  const auto filters_of = [](const std::string& out) {
    const auto at = out.find("Seccomp_filters:");
    return at == std::string::npos ? -1 : std::stoi(out.substr(at + 16));
  };
  REQUIRE(filters_of(bare->out) >= 1);
  // errand-relay is PID 1 and the agent its child, started after the relay took errand's two
  // programs on top of podman's profile (the guard for syscall numbers newer than the build,
  // and the refusals), which the agent inherits: no process in the container has fewer.
  const auto out = c.run(
      {"sh", "-c",
       "echo ppid=$PPID; " + count + "; grep Seccomp_filters /proc/1/status | sed s/^/pid1-/"});
  INFO(out.out << out.err);
  CHECK(out.exit_code == 0);
  CHECK(out.out.find("ppid=1\n") != std::string::npos);
  CHECK(filters_of(out.out) == filters_of(bare->out) + 2);
  const auto pid1 = out.out.find("pid1-");
  REQUIRE(pid1 != std::string::npos);
  CHECK(filters_of(out.out.substr(pid1)) == filters_of(out.out));
}

TEST_CASE("inside the container the agent is the daemon's account, and writes land as its own") {
  ProbeContainer c;
  const auto who = c.probe({"whoami"});
  INFO(who.out << who.err);
  CHECK(who.out.find("uid=" + std::to_string(::getuid()) +
                     " home=/state/home path=/usr/local/bin:/usr/bin:/bin cwd=/workspace") !=
        std::string::npos);
  const auto wrote = c.probe({"write", "/workspace/made-inside"});
  INFO(wrote.out << wrote.err);
  CHECK(wrote.exit_code == 0);
  CHECK(fs::exists(c.spec.project_dir / "made-inside"));
}

TEST_CASE("under the broker only 127.0.0.1:3128 leads out, to the session's broker socket",
          "[key:sandbox.egress.mode]") {
  ProbeContainer c;
  c.spec.policy.network = sdk::NetworkMode::restricted;
  c.spec.policy.egress = sdk::EgressMode::proxy;
  c.spec.broker_socket = c.dir.path() / "broker.sock";

  const std::string connect = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n";
  {
    EchoBroker broker(*c.spec.broker_socket, kRunTimeout);
    const auto through = c.probe({"tcp-echo", "127.0.0.1", "3128", connect});
    INFO(through.out << through.err);
    CHECK(through.exit_code == 0);
    CHECK(broker.received() == connect);
    CHECK(through.out == "ok echo=" + connect + "\n");
  }
  // Nothing else is reachable: the container's namespace has only its loopback.
  for (const char* address : {"192.0.2.1", "1.1.1.1", "10.0.2.2"}) {
    const auto direct = c.probe({"tcp", address, "443"});
    INFO(address << ": " << direct.out << direct.err);
    CHECK(direct.exit_code == 1);
    CHECK(direct.out.rfind("errno=ENETUNREACH", 0) == 0);
  }
}

TEST_CASE("egress open: the host's loopback is out of reach, the rest of the network is not",
          "[key:sandbox.egress.mode]") {
  ProbeContainer c;
  c.spec.policy.network = sdk::NetworkMode::restricted;
  c.spec.policy.egress = sdk::EgressMode::open;
  HostListener listener;

  // slirp4netns's 10.0.2.2 is the host's loopback unless allow_host_loopback=false cuts it off.
  const auto host_loopback = c.probe({"tcp", "10.0.2.2", listener.port()});
  INFO("10.0.2.2: " << host_loopback.out << host_loopback.err);
  CHECK(host_loopback.exit_code == 1);
  CHECK(host_loopback.out.rfind("errno=ENETUNREACH", 0) == 0);
  // 127.0.0.1 inside is the container's own loopback, where nothing listens.
  const auto own_loopback = c.probe({"tcp", "127.0.0.1", listener.port()});
  INFO("127.0.0.1: " << own_loopback.out << own_loopback.err);
  CHECK(own_loopback.out.rfind("errno=ECONNREFUSED", 0) == 0);

  // The same listener on another address of the host answers: the network is open.
  const auto address = host_address();
  REQUIRE_FALSE(address.empty());
  const auto reached = c.probe({"tcp", address, listener.port()});
  INFO(address << ": " << reached.out << reached.err);
  CHECK(reached.exit_code == 0);
  CHECK(reached.out == "ok banner=host\n");

  const auto report = build_probe_report(gather_host_facts(c.env, kTestImage), c.spec.policy);
  std::string notes;
  for (const auto& n : report.notes) notes += n + "\n";
  INFO(notes);
  for (const auto& gap : report.gaps) CHECK(gap.guarantee.find("egress open") == std::string::npos);
  CHECK(notes.find("reaches any host on any port") != std::string::npos);
}
