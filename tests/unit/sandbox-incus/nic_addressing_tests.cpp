#include "plugins/sandbox-incus/impl/nic_addressing.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

#include "tests/unit/sandbox-incus/recorded_incus.hpp"

using namespace errand::incus;
namespace json = boost::json;

namespace {

std::uint32_t address_of(const char* text) {
  const auto subnet = parse_bridge_subnet(std::string(text) + "/24");
  REQUIRE(subnet.has_value());
  return subnet->gateway;
}

const json::object kProfileNic{{"network", "errandtest0"}, {"type", "nic"}};

}  // namespace

TEST_CASE("a bridge's ipv4.address is read as its address and prefix; anything else is none") {
  const auto subnet = parse_bridge_subnet("10.254.214.1/24");
  REQUIRE(subnet.has_value());
  CHECK(ipv4_text(subnet->gateway) == "10.254.214.1");
  CHECK(subnet->prefix == 24);
  CHECK(parse_bridge_subnet("10.0.0.1/30").has_value());
  for (const char* refused :
       {"none", "", "10.254.214.1", "10.254.214.1/31", "10.254.214.1/0", "10.254.214.1/24x",
        "10.254.214.1/", "fd42::1/64", "10.254.214.300/24"})
    CHECK_FALSE(parse_bridge_subnet(refused).has_value());
}

TEST_CASE("only a nic on a managed bridge with an IPv4 subnet is addressed by errand") {
  const auto bridge = json::parse(recorded::kManagedBridge);
  auto nic = addressed_nic("eth0", kProfileNic, bridge);
  REQUIRE(nic.has_value());
  CHECK(nic->device == "eth0");
  CHECK(nic->interface == "eth0");
  CHECK(nic->network == "errandtest0");
  CHECK(nic->profile_device == kProfileNic);
  CHECK(ipv4_text(nic->subnet.gateway) == "10.254.214.1");
  CHECK(nic->subnet.prefix == 24);
  CHECK(nic->nameserver);

  SECTION("the device's name key names the interface inside") {
    auto named = kProfileNic;
    named["name"] = "net0";
    CHECK(addressed_nic("eth0", named, bridge)->interface == "net0");
  }
  SECTION("a bridge whose dnsmasq answers no names is no nameserver") {
    auto quiet = bridge;
    quiet.as_object()["config"].as_object()["dns.mode"] = "none";
    CHECK_FALSE(addressed_nic("eth0", kProfileNic, quiet)->nameserver);
  }
  SECTION("left to the guest: unmanaged, no IPv4, not a bridge") {
    CHECK_FALSE(addressed_nic("eth0", kProfileNic, json::parse(recorded::kUnmanagedInterface)));
    auto v6only = bridge;
    v6only.as_object()["config"].as_object()["ipv4.address"] = "none";
    CHECK_FALSE(addressed_nic("eth0", kProfileNic, v6only));
    auto ovn = bridge;
    ovn.as_object()["type"] = "ovn";
    CHECK_FALSE(addressed_nic("eth0", kProfileNic, ovn));
  }
}

TEST_CASE("static and dynamic leases are both taken") {
  const auto taken = leased_addresses(json::parse(recorded::kBridgeLeases));
  CHECK(taken == std::set<std::uint32_t>{address_of("10.254.214.50"), address_of("10.254.214.77")});
  CHECK(leased_addresses(json::parse("{}")).empty());
  CHECK(leased_addresses(json::parse(R"([{"address": "fd42::5"}, {"hostname": "x"}])")).empty());
}

TEST_CASE("a picked address is a host of the subnet that is neither the bridge's nor taken") {
  const Ipv4Subnet subnet{address_of("10.254.214.1"), 24};
  std::set<std::uint32_t> taken{address_of("10.254.214.50")};
  std::mt19937_64 random(7);
  std::set<std::uint32_t> picked;
  for (int i = 0; i < 2000; ++i) {
    const auto a = pick_free_address(subnet, taken, random);
    REQUIRE(a.has_value());
    CHECK((*a & 0xffffff00u) == address_of("10.254.214.0"));
    CHECK((*a & 0xffu) != 0);
    CHECK((*a & 0xffu) != 255);
    CHECK(*a != subnet.gateway);
    CHECK_FALSE(taken.contains(*a));
    picked.insert(*a);
  }
  // From a random place on: the picks spread over the subnet rather than repeat the first free.
  CHECK(picked.size() > 200);

  SECTION("the last free address is found, and a full subnet has none") {
    for (std::uint32_t host = 1; host < 255; ++host)
      if (host != 1 && host != 200) taken.insert(address_of("10.254.214.0") + host);
    CHECK(pick_free_address(subnet, taken, random) == address_of("10.254.214.200"));
    taken.insert(address_of("10.254.214.200"));
    CHECK_FALSE(pick_free_address(subnet, taken, random).has_value());
  }
  SECTION("a /30 has one address beside the bridge") {
    const Ipv4Subnet narrow{address_of("10.0.0.1"), 30};
    CHECK(pick_free_address(narrow, {}, random) == address_of("10.0.0.2"));
  }
}

TEST_CASE("incusd's refusal of a pinned address another nic holds is told from other errors") {
  CHECK(is_address_conflict(
      "Failed start validation for device \"eth0\": IP address \"10.254.214.50\" already defined "
      "on another NIC"));
  CHECK_FALSE(is_address_conflict("Failed creating instance record: Instance name already exists"));
}
