// An egress-open incus session's network, through launch(): the plugin pins an address of the
// profile bridge's subnet on the guest's nic, and errand-guest-init configures it, routes through
// the bridge and resolves names by the bridge's dnsmasq, all before the agent starts. The test
// project's profile has eth0 on scripts/start-test-incus's bridge (10.254.214.1/24).

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>

#include "tests/live/incus/live_incus_daemon.hpp"

using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

constexpr const char* kBridgeAddress = "10.254.214.1";

// eth0's IPv4 address and prefix as `ip` prints them ("10.254.214.37/24").
constexpr const char* kPrintAddress =
    "echo addr:$(ip -4 -o addr show dev eth0 | awk '{print $4}'); ";

sdk::LaunchSpec egress_open(Daemon& daemon, std::vector<std::string> argv) {
  auto spec = daemon.spec(std::move(argv));
  spec.policy.network = sdk::NetworkMode::restricted;
  spec.policy.egress = sdk::EgressMode::open;
  const auto report = daemon.probe(spec.policy);
  INFO(report.summary);
  REQUIRE(report.gaps.empty());
  return spec;
}

// The value after "name:" on its own line of out.
std::string line_value(const std::string& out, const std::string& name) {
  const auto at = out.find(name + ":");
  if (at == std::string::npos) return {};
  const auto start = at + name.size() + 1;
  return out.substr(start, out.find('\n', start) - start);
}

}  // namespace

TEST_CASE(
    "an incus session with egress open has an address of its own on the profile's bridge, routes "
    "through the bridge and resolves names by it",
    "[live]") {
  Daemon daemon;
  auto spec = egress_open(daemon, {});
  // The bridge's dnsmasq answers for the bridge itself as _gateway under its DNS domain (Incus's
  // default, incus), and forwards the rest to the host's resolvers.
  spec.argv = {"/bin/sh", "-c",
               std::string(kPrintAddress) +
                   "echo route:$(ip -4 route show default); "
                   "echo resolver:$(grep -v '^#' /etc/resolv.conf); "
                   "echo named:$(getent hosts _gateway.incus | awk '{print $1}')"};
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  const auto address = line_value(ended.out, "addr");
  CHECK_THAT(address, StartsWith("10.254.214.") && Catch::Matchers::EndsWith("/24"));
  CHECK(address != std::string(kBridgeAddress) + "/24");
  CHECK_THAT(ended.out,
             ContainsSubstring("route:default via " + std::string(kBridgeAddress) + " dev eth0"));
  CHECK_THAT(ended.out, ContainsSubstring("resolver:nameserver " + std::string(kBridgeAddress)));
  CHECK(line_value(ended.out, "named") == kBridgeAddress);
  CHECK(ended.exit.exit_code == 0);
  CHECK(ended.exit.cleanup_complete);
}

TEST_CASE("two incus sessions with egress open at once get different addresses", "[live]") {
  Daemon daemon;
  // The first holds its instance (and so its address) until it reads a line.
  auto first = daemon.launch(
      egress_open(daemon, {"/bin/sh", "-c", std::string(kPrintAddress) + "read -r _"}));
  const auto second =
      run_to_end(daemon, egress_open(daemon, {"/bin/sh", "-c", std::string(kPrintAddress)}));
  write_all(first->stdin_fd(), "done\n");
  const auto first_out = read_all(first->stdout_fd());
  const auto first_exit = daemon.run(first->wait());
  INFO(first_out << second.out << second.err);
  const auto a = line_value(first_out, "addr");
  const auto b = line_value(second.out, "addr");
  CHECK_THAT(a, StartsWith("10.254.214."));
  CHECK_THAT(b, StartsWith("10.254.214."));
  CHECK(a != b);
  CHECK(first_exit.exit_code == 0);
  CHECK(second.exit.exit_code == 0);
}
