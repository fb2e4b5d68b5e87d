#include <arpa/inet.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <string>
#include <vector>

#include "plugins/sandbox-incus/guest/init_options.hpp"
#include "plugins/sandbox-incus/guest/static_network.hpp"

using namespace errand::incus::guest;
using Catch::Matchers::ContainsSubstring;

namespace {

std::string text_of(const in_addr& a) {
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a, text, sizeof text);
  return text;
}

auto parse(std::vector<std::string> flags) {
  std::vector<std::string> args{
      "errand-guest-init", "--uid",      "1000", "--home",     "/state/home", "--cwd",
      "/workspace",        "--tmp-size", "1024", "--shm-size", "1024"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "agent"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_options(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("an --ipv4 value is an interface, an address and a prefix; each bad part is named") {
  const auto nic = parse_interface_address("eth0=10.254.214.37/24");
  REQUIRE(nic.has_value());
  CHECK(nic->interface == "eth0");
  CHECK(text_of(nic->address) == "10.254.214.37");
  CHECK(nic->prefix == 24);
  const std::pair<const char*, const char*> refused[] = {
      {"eth0", "is not INTERFACE=ADDRESS/PREFIX"},
      {"10.254.214.37/24", "is not INTERFACE=ADDRESS/PREFIX"},
      {"=10.254.214.37/24", "'' is not an interface name"},
      {"a-name-far-too-long=10.0.0.2/24", "is not an interface name"},
      {"eth0=10.254.214/24", "'10.254.214' is not an IPv4 address"},
      {"eth0=10.254.214.37/33", "'33' is not a prefix length from 1 to 32"},
      {"eth0=10.254.214.37/", "'' is not a prefix length"}};
  for (const auto& [value, why] : refused) {
    INFO(value);
    const auto parsed = parse_interface_address(value);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_THAT(parsed.error().message, ContainsSubstring(why));
  }
}

TEST_CASE("the init takes the pinned addresses, the gateway and the nameserver") {
  const auto options = parse({"--ipv4", "eth0=10.254.214.37/24", "--ipv4", "eth1=10.9.0.5/16",
                              "--gateway", "10.254.214.1", "--nameserver", "10.254.214.1"});
  REQUIRE(options.has_value());
  REQUIRE(options->network.addresses.size() == 2);
  CHECK(options->network.addresses[1].interface == "eth1");
  CHECK(text_of(*options->network.gateway) == "10.254.214.1");
  CHECK(text_of(*options->network.nameserver) == "10.254.214.1");
  CHECK_FALSE(options->await_network);
  const auto plain = parse({});
  REQUIRE(plain.has_value());
  CHECK(plain->network.addresses.empty());
  CHECK_FALSE(plain->network.gateway.has_value());
}

TEST_CASE(
    "addresses without a route, a route without addresses, or both ways at once are refused") {
  const std::pair<std::vector<std::string>, const char*> refused[] = {
      {{"--ipv4", "eth0=10.254.214.37/24"}, "--ipv4 needs a --gateway"},
      {{"--gateway", "10.254.214.1"}, "need an --ipv4"},
      {{"--nameserver", "10.254.214.1"}, "need an --ipv4"},
      {{"--ipv4", "eth0=10.254.214.37/24", "--gateway", "10.254.214.1", "--await-network"},
       "--await-network is for a nic the guest configures"},
      {{"--gateway", "gateway"}, "--gateway takes an IPv4 address, not 'gateway'"},
      {{"--ipv4", "eth0"}, "--ipv4: 'eth0' is not INTERFACE=ADDRESS/PREFIX"}};
  for (const auto& [flags, why] : refused) {
    const auto parsed = parse(flags);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_THAT(parsed.error().message, ContainsSubstring(why));
  }
}

TEST_CASE("resolv.conf names the bridge as the only nameserver") {
  const auto bridge = parse_ipv4("10.254.214.1");
  REQUIRE(bridge.has_value());
  CHECK(resolv_conf(*bridge) ==
        "# written by errand-guest-init for this session\nnameserver 10.254.214.1\n");
  CHECK_FALSE(parse_ipv4("10.254.214").has_value());
}
