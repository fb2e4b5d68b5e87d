// An incus session under the broker (network restricted, egress proxy): the guest has no NIC,
// so a connection to any outside address fails with ENETUNREACH and no name resolves, while the
// proxy address the agent is given, 127.0.0.1:3128, leads through errand-guest-init's relay to
// the broker's socket, which the guest sees read-only. Containers the agent runs inside (Docker,
// rootless podman) get no further. And the session's secrets are in no host process's command
// line or environment while it runs.

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <fstream>
#include <iterator>
#include <random>

#include "tests/live/incus/broker_stand_in.hpp"
#include "tests/live/incus/live_incus_daemon.hpp"

using namespace errand::incus;
using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;

namespace {

sdk::LaunchSpec brokered(Daemon& daemon, std::vector<std::string> argv) {
  auto spec = daemon.spec(std::move(argv));
  spec.policy.network = sdk::NetworkMode::restricted;
  spec.policy.egress = sdk::EgressMode::proxy;
  // A sibling of the state directory, never inside it, as the core places it.
  spec.broker_socket = spec.state_dir.parent_path() / "broker.sock";
  spec.env.emplace_back("http_proxy", "http://127.0.0.1:3128");
  return spec;
}

std::string unique_secret() {
  std::random_device random;
  return "errand-standin-" + std::to_string(random()) + std::to_string(random());
}

struct Scan {
  int cmdlines = 0;                  // how many command lines could be read
  int environs = 0;                  // and environments
  std::vector<std::string> holding;  // which of them held the needle
};

// Every /proc/N/cmdline and /proc/N/environ the test account may read, searched for needle.
Scan scan_host_processes(const std::string& needle) {
  Scan scan;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    for (const char* part : {"cmdline", "environ"}) {
      const auto path = entry.path() / part;
      if (::access(path.c_str(), R_OK) != 0) continue;
      std::ifstream in(path, std::ios::binary);
      if (!in) continue;
      const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      ++(std::string(part) == "cmdline" ? scan.cmdlines : scan.environs);
      if (text.find(needle) != std::string::npos) scan.holding.push_back(path.string());
    }
  }
  return scan;
}

}  // namespace

TEST_CASE("under the broker an incus guest has no way out but 127.0.0.1:3128, to the broker",
          "[live][key:sandbox.egress.mode]") {
  Daemon daemon;
  // bash's /dev/tcp reports connect()'s errno as its text; getent exits 2 for a name not found.
  // The proxy connection is made at once, as an agent's first one is, while the guest's systemd
  // may still be booting.
  auto spec = brokered(
      daemon, {"/bin/bash", "-c",
               "for address in 192.0.2.1 1.1.1.1; do (exec 4<>/dev/tcp/$address/443) 2>&1; done; "
               "getent hosts example.com; echo getent:$?; "
               "echo nics:$(ls /sys/class/net | tr '\\n' ' '); "
               "proxy=${http_proxy#http://}; "
               "exec 3<>/dev/tcp/${proxy%:*}/${proxy##*:} && "
               "printf 'CONNECT example.com:443 HTTP/1.1\\n' >&3 && head -n1 <&3 2>&1 || echo "
               "proxy-failed:$?; "
               "grep ' /errand/broker.sock ' /proc/self/mountinfo | cut -d' ' -f6; "
               "chmod 0777 /errand/broker.sock 2>&1; sudo -n chmod 0777 /errand/broker.sock 2>&1; "
               "sudo -n rm -f /errand/broker.sock 2>&1; true"});
  daemon.probe(spec.policy);
  const auto socket = *spec.broker_socket;
  errand::test::BrokerStandIn broker(socket);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("/dev/tcp/192.0.2.1/443: Network is unreachable"));
  CHECK_THAT(ended.out, ContainsSubstring("/dev/tcp/1.1.1.1/443: Network is unreachable"));
  CHECK_THAT(ended.out, ContainsSubstring("getent:2\n"));
  CHECK_THAT(ended.out, ContainsSubstring("nics:lo\n"));
  // The relay runs as the agent's uid, which the idmap maps to the daemon's account.
  CHECK_THAT(ended.out, ContainsSubstring("broker heard: CONNECT example.com:443 HTTP/1.1"));
  CHECK(broker.peer_uid() == ::getuid());
  // The mount's own options, then what neither the agent nor the guest's root may do to it.
  CHECK_THAT(ended.out, ContainsSubstring("\nro,"));
  CHECK_THAT(
      ended.out,
      ContainsSubstring("changing permissions of '/errand/broker.sock': Read-only file system"));
  CHECK_THAT(ended.out, ContainsSubstring("cannot remove '/errand/broker.sock'"));
  CHECK(fs::status(socket).type() == fs::file_type::socket);
  CHECK(ended.exit.exit_code == 0);
  CHECK(ended.exit.cleanup_complete);
}

TEST_CASE("an incus session's secrets are in no host process's command line or environment",
          "[live]") {
  Daemon daemon;
  const auto secret = unique_secret();
  const auto proxy_secret = unique_secret();
  // The marker is on the agent's command line, which incusd's exec helper on the host carries:
  // finding it proves the scan reads the helper that would leak a secret put in exec's
  // environment.
  const auto marker = "errand-scan-marker-" + std::to_string(::getpid());
  auto spec = brokered(daemon, {"/bin/sh", "-c",
                                "echo has:${ANTHROPIC_API_KEY}:${HTTPS_PROXY}; echo ready; "
                                "read line; echo " +
                                    marker});
  spec.env.emplace_back("ANTHROPIC_API_KEY", secret);
  spec.env.emplace_back("HTTPS_PROXY", "http://errand:" + proxy_secret + "@127.0.0.1:3128");
  spec.policy.env_extra.emplace_back("GH_TOKEN", secret + "-gh");
  daemon.probe(spec.policy);
  errand::test::BrokerStandIn broker(*spec.broker_socket);
  auto process = daemon.launch(std::move(spec));
  std::string head;
  char c;
  while (head.find("ready\n") == std::string::npos && ::read(process->stdout_fd(), &c, 1) == 1)
    head += c;
  INFO(head);
  // The agent has them, so they were handed over (on the exec's stdin).
  CHECK_THAT(head, ContainsSubstring("has:" + secret + ":http://errand:" + proxy_secret + "@"));

  const auto found_marker = scan_host_processes(marker);
  INFO(found_marker.cmdlines << " command lines and " << found_marker.environs
                             << " environments read");
  CHECK_FALSE(found_marker.holding.empty());
  for (const auto& needle : {secret, proxy_secret}) {
    const auto scan = scan_host_processes(needle);
    for (const auto& path : scan.holding) FAIL_CHECK(path << " holds a secret of the session");
  }
  write_all(process->stdin_fd(), "done\n");
  const auto rest = read_all(process->stdout_fd());
  const auto exit = daemon.run(process->wait());
  CHECK_THAT(rest, ContainsSubstring(marker));
  CHECK(exit.exit_code == 0);
  CHECK(exit.cleanup_complete);
}

TEST_CASE("an incus session's proxy variables survive sudo, so apt and pip as root use the broker",
          "[live][key:sandbox.egress.mode]") {
  Daemon daemon;
  auto spec = brokered(daemon, {"/bin/sh", "-c",
                                "echo agent:$http_proxy; "
                                "sudo -n sh -c 'echo root:$http_proxy uid:$(id -u)'"});
  spec.env.emplace_back("HTTPS_PROXY", "http://127.0.0.1:3128");
  daemon.probe(spec.policy);
  errand::test::BrokerStandIn broker(*spec.broker_socket);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK_THAT(ended.out, ContainsSubstring("agent:http://127.0.0.1:3128\n"));
  CHECK_THAT(ended.out, ContainsSubstring("root:http://127.0.0.1:3128 uid:0\n"));
  CHECK(ended.exit.exit_code == 0);
}

TEST_CASE("under the broker, containers the agent runs inside have no way out but the broker",
          "[live][key:sandbox.egress.mode]") {
  Daemon daemon;
  // The same two tries from three nested containers: an outside address, and the proxy address
  // the agent is given (only whether a connection is taken: nc exits 0 when it connected, 1 when
  // it could not). On Docker's own bridge the container has a network of its own, which leads
  // nowhere (the guest has no NIC), and nothing listens at its 127.0.0.1; with the guest's
  // network (Docker's --network=host, and rootless podman, whose default the image sets to the
  // guest's own) the proxy address is errand-guest-init's relay to the broker, and the outside
  // is still unreachable.
  const std::string tries =
      "/bin/busybox nc -w 3 192.0.2.1 443 </dev/null >/dev/null 2>&1; echo direct-exit:$?; "
      "/bin/busybox nc -w 3 127.0.0.1 3128 </dev/null 2>&1; echo proxy-exit:$?";
  auto spec = brokered(
      daemon, {"/bin/bash", "-c",
               std::string(kAwaitBoot) +
                   "sudo -n docker import /usr/share/errand/nested-image.tar nested >/dev/null; "
                   "podman import --quiet /usr/share/errand/nested-image.tar localhost/nested "
                   ">/dev/null; "
                   "echo '== docker bridge'; "
                   "timeout 60 sudo -n docker run --rm nested /bin/busybox sh -c \"$TRIES\"; "
                   "echo '== docker host'; "
                   "timeout 60 sudo -n docker run --rm --network=host nested /bin/busybox sh -c "
                   "\"$TRIES\"; "
                   "echo '== podman'; "
                   "timeout 60 podman run --rm localhost/nested /bin/busybox sh -c \"$TRIES\"; "
                   "echo '== end'"});
  spec.env.emplace_back("TRIES", tries);
  daemon.probe(spec.policy);
  // The relay passes the two connections from the guest's network on, after the boot and the
  // imports.
  errand::test::BrokerStandIn broker(*spec.broker_socket, 2, std::chrono::seconds(180));
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  const auto section = [&](const std::string& name) {
    const auto start = ended.out.find("== " + name + "\n");
    if (start == std::string::npos) return std::string();
    const auto end = ended.out.find("\n== ", start + 1);
    return ended.out.substr(start, end == std::string::npos ? std::string::npos : end - start);
  };
  const auto bridge = section("docker bridge");
  const auto host = section("docker host");
  const auto podman = section("podman");
  REQUIRE_FALSE(bridge.empty());
  REQUIRE_FALSE(host.empty());
  REQUIRE_FALSE(podman.empty());
  CHECK_THAT(ended.out, ContainsSubstring("== end\n"));
  // No container reached the outside address.
  for (const auto& nested : {bridge, host, podman})
    CHECK_THAT(nested, ContainsSubstring("direct-exit:1"));
  // Docker's bridge: no proxy either.
  CHECK_THAT(bridge, ContainsSubstring("can't connect to remote host (127.0.0.1): Connection "
                                       "refused"));
  CHECK_THAT(bridge, ContainsSubstring("proxy-exit:1"));
  // The guest's network: the relay took the connection.
  for (const auto& guest_network : {host, podman})
    CHECK_THAT(guest_network, ContainsSubstring("proxy-exit:0"));
  CHECK(ended.exit.exit_code == 0);
}
