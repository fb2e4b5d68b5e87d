// IPv4 text as the Incus plugin and its guest init read and write it: exact dotted quads, and
// ADDRESS/PREFIX with the refusal naming the part that is wrong.

#include <catch2/catch_test_macros.hpp>

#include "common/ipv4/ipv4_text.hpp"

namespace ipv4 = errand::ipv4;

TEST_CASE("an IPv4 address reads to host order and writes back the same") {
  const auto a = ipv4::parse_address("10.254.214.1");
  REQUIRE(a);
  CHECK(*a == 0x0afed601u);
  CHECK(ipv4::address_text(*a) == "10.254.214.1");
  for (const char* bad : {"10.254.214", "10.254.214.1/24", " 10.254.214.1", "10.254.214.256", ""})
    CHECK_FALSE(ipv4::parse_address(bad).has_value());
}

TEST_CASE("ADDRESS/PREFIX reads within the widest prefix given, and a refusal names its part") {
  const auto cidr = ipv4::parse_cidr("10.254.214.37/24");
  REQUIRE(cidr);
  CHECK(cidr->address == 0x0afed625u);
  CHECK(cidr->prefix == 24);
  CHECK(ipv4::parse_cidr("10.0.0.1/32"));
  CHECK(ipv4::parse_cidr("10.0.0.1/31", 30).error().message ==
        "'31' is not a prefix length from 1 to 30");
  CHECK(ipv4::parse_cidr("10.0.0/24").error().message == "'10.0.0' is not an IPv4 address");
  CHECK(ipv4::parse_cidr("10.0.0.1/").error().message == "'' is not a prefix length from 1 to 32");
  CHECK(ipv4::parse_cidr("10.0.0.1/0").error().message ==
        "'0' is not a prefix length from 1 to 32");
  CHECK(ipv4::parse_cidr("10.0.0.1/24x").error().message ==
        "'24x' is not a prefix length from 1 to 32");
  CHECK(ipv4::parse_cidr("10.0.0.1").error().message == "'10.0.0.1' is not ADDRESS/PREFIX");
}
