#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include "tests/support/own_network_check.hpp"
#include "tests/support/result_printing.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "plugins/broker/admission/address_judge.hpp"
#include "plugins/broker/admission/address_policy.hpp"

using namespace errand::broker;
namespace ip = boost::asio::ip;
using namespace std::chrono_literals;

namespace {

std::vector<AddressRange> ranges(std::initializer_list<const char*> texts) {
  std::vector<AddressRange> out;
  for (const char* t : texts) {
    auto r = parse_address_range(t);
    REQUIRE(r);
    out.push_back(std::move(*r));
  }
  return out;
}

// An interface list a test can change, as DHCP or a new interface would.
struct Interfaces {
  std::mutex mutex;
  std::vector<ip::address> list;
  void set(std::initializer_list<const char*> texts) {
    std::lock_guard lock(mutex);
    list.clear();
    for (const char* t : texts) list.push_back(ip::make_address(t));
  }
  InterfaceAddressSource source() {
    return [this] {
      std::lock_guard lock(mutex);
      return list;
    };
  }
};

Admission admit(const AddressPolicy& policy, const char* text) {
  return policy.admit(ip::make_address(text));
}

}  // namespace

TEST_CASE("a listed range admits the internal addresses inside it and no others",
          "[address_policy]") {
  Interfaces none;
  const HostAddresses host(none.source());
  const auto listed = ranges({"10.1.2.0/24", "fd12:3456::/48", "127.0.0.1"});
  const AddressPolicy policy(listed, host);
  for (const char* inside :
       {"10.1.2.0", "10.1.2.255", "fd12:3456::9", "::ffff:10.1.2.7", "127.0.0.1"}) {
    CAPTURE(inside);
    const auto a = admit(policy, inside);
    CHECK(a.admitted);
    REQUIRE(a.lifted_by != nullptr);
  }
  CHECK(admit(policy, "10.1.2.7").lifted_by->text == "10.1.2.0/24");
  for (const char* outside : {"10.1.3.0", "10.1.1.255", "fd12:3457::1", "127.0.0.2", "::1"}) {
    CAPTURE(outside);
    const auto a = admit(policy, outside);
    CHECK_FALSE(a.admitted);
    CHECK(a.liftable);
  }
  // Public addresses need no range.
  CHECK(admit(policy, "8.8.8.8").admitted);
  CHECK(admit(policy, "8.8.8.8").lifted_by == nullptr);
}

TEST_CASE("link-local, metadata, fabric and the like are never lifted, even by ::/0",
          "[address_policy]") {
  Interfaces none;
  const HostAddresses host(none.source());
  const auto everything = ranges({"0.0.0.0/0", "::/0"});
  const AddressPolicy policy(everything, host);
  const char* never =
      GENERATE("169.254.169.254", "169.254.1.1", "168.63.129.16", "fd00:ec2::254",
               "100.100.100.200", "192.0.0.192", "fd20:ce::254", "fd00:ec2::23", "fd00:42::42",
               "::ffff:100.100.100.200", "fe80::1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe",
               "0.0.0.0", "::", "255.255.255.255", "224.0.0.1", "ff02::1");
  CAPTURE(never);
  const auto a = admit(policy, never);
  CHECK_FALSE(a.admitted);
  CHECK_FALSE(a.liftable);
  CHECK_FALSE(a.category.empty());
}

TEST_CASE("cloud metadata addresses are named as such", "[address_judge]") {
  const auto v4 = judge_address(ip::make_address("169.254.169.254"));
  CHECK(v4.category == "a cloud metadata address (169.254.169.254)");
  CHECK(v4.never_lifted);
  const auto v6 = judge_address(ip::make_address("fd00:ec2::254"));
  CHECK(v6.category == "a cloud metadata address (fd00:ec2::254)");
  CHECK(v6.never_lifted);
  // Those inside ranges an operator may list (a tailnet's 100.64/10, a unique-local /48).
  const auto alibaba = judge_address(ip::make_address("100.100.100.200"));
  CHECK(alibaba.category == "a cloud metadata address (Alibaba Cloud's 100.100.100.200)");
  CHECK(alibaba.never_lifted);
  CHECK(judge_address(ip::make_address("192.0.0.192")).never_lifted);
  const auto google = judge_address(ip::make_address("fd20:ce::254"));
  CHECK(google.category == "a cloud metadata address (Google Cloud's fd20:ce::254)");
  CHECK(google.never_lifted);
  // The rest of those ranges is internal but liftable.
  CHECK_FALSE(judge_address(ip::make_address("100.100.100.201")).never_lifted);
  CHECK_FALSE(judge_address(ip::make_address("192.0.0.193")).never_lifted);
  CHECK_FALSE(judge_address(ip::make_address("fd00:ec2::253")).never_lifted);
  CHECK_FALSE(judge_address(ip::make_address("10.0.0.1")).never_lifted);
}

TEST_CASE("the host's own addresses are refused, public or listed, loopback aside",
          "[address_policy]") {
  Interfaces interfaces;
  interfaces.set({"127.0.0.1", "::1", "93.184.216.34", "10.20.30.40", "2606:2800:220:1::1"});
  const HostAddresses host(interfaces.source(), 50ms);
  const auto listed = ranges({"10.0.0.0/8", "127.0.0.0/8"});
  const AddressPolicy policy(listed, host);
  for (const char* own :
       {"93.184.216.34", "10.20.30.40", "2606:2800:220:1::1", "::ffff:93.184.216.34"}) {
    CAPTURE(own);
    const auto a = admit(policy, own);
    CHECK_FALSE(a.admitted);
    CHECK_FALSE(a.liftable);
    CHECK(a.category == "an address of this host's own interfaces");
  }
  // A service on this host is reached on a listed loopback address.
  CHECK(admit(policy, "127.0.0.1").admitted);
  CHECK(admit(policy, "10.20.30.41").admitted);
  CHECK(admit(policy, "93.184.216.35").admitted);

  // An address the host gains is refused once the list is re-read; one it loses is let go.
  interfaces.set({"127.0.0.1", "93.184.216.35"});
  std::this_thread::sleep_for(80ms);
  CHECK_FALSE(admit(policy, "93.184.216.35").admitted);
  CHECK(admit(policy, "93.184.216.34").admitted);
}

TEST_CASE("an interface list that cannot be read refuses every non-loopback address",
          "[address_policy]") {
  const HostAddresses host([]() -> std::vector<ip::address> {
    throw std::runtime_error("getifaddrs: Too many open files");
  });
  const std::vector<AddressRange> none;
  const AddressPolicy policy(none, host);
  const auto a = admit(policy, "8.8.8.8");
  CHECK_FALSE(a.admitted);
  CHECK(a.category.find("Too many open files") != std::string::npos);
}

// The inner half of the case below, run where getifaddrs reports the test's own interface.
TEST_CASE("own network: getifaddrs reports each address and each is refused though listed",
          "[.own-network]") {
  const auto real = interface_addresses();
  CHECK(std::find(real.begin(), real.end(), ip::make_address("127.0.0.1")) != real.end());
  REQUIRE(std::find(real.begin(), real.end(), ip::make_address(errand::test::kOwnAddressV4)) !=
          real.end());
  REQUIRE(std::find(real.begin(), real.end(), ip::make_address(errand::test::kOwnAddressV6)) !=
          real.end());
  // Ranges covering everything: only the host rule can refuse a non-loopback address here.
  const HostAddresses host;
  const auto everything = ranges({"0.0.0.0/0", "::/0"});
  const AddressPolicy policy(everything, host);
  for (const auto& address : real) {
    if (plain_address(address).is_loopback()) continue;
    CAPTURE(address.to_string());
    CHECK_FALSE(policy.admit(address).admitted);
  }
  CHECK(policy.admit(ip::make_address("127.0.0.1")).admitted);
  // An address the namespace does not carry, in the same listed range, is let through.
  CHECK(policy.admit(ip::make_address("198.51.100.8")).admitted);
}

TEST_CASE("getifaddrs reports this machine's addresses, and each is refused though listed",
          "[address_policy][own_network]") {
  // In a network of the test's own, so a loopback-only host checks the rule too.
  errand::test::check_passes_in_own_network(
      "own network: getifaddrs reports each address and each is refused though listed");
}

TEST_CASE("address ranges parse as CIDR blocks or single addresses", "[address_policy]") {
  const auto block = parse_address_range("192.168.4.0/22");
  REQUIRE(block);
  CHECK(block->contains(ip::make_address("192.168.7.255")));
  CHECK_FALSE(block->contains(ip::make_address("192.168.8.0")));
  CHECK_FALSE(block->contains(ip::make_address("::ffff:192.168.8.0")));
  // A mapped range is the IPv4 range it names.
  const auto mapped = parse_address_range("::ffff:10.0.0.1");
  REQUIRE(mapped);
  CHECK(mapped->contains(ip::make_address("10.0.0.1")));
  CHECK(parse_address_range("0.0.0.0/0"));
  CHECK(parse_address_range("::/0"));
  CHECK_FALSE(parse_address_range("10.0.0.0/8/8"));
  CHECK_FALSE(parse_address_range("10.0.0.0/-1"));
  CHECK_FALSE(parse_address_range("10.0.0.0/ 8"));
  CHECK_FALSE(parse_address_range("::/129"));
  CHECK_FALSE(parse_address_range(""));
}
