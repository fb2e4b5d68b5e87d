#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include "plugins/broker/admission/address_judge.hpp"

using errand::broker::judge_address;

namespace {
bool is_public(const char* text) {
  return judge_address(boost::asio::ip::make_address(text)).is_public;
}
std::string category(const char* text) {
  return judge_address(boost::asio::ip::make_address(text)).category;
}
}  // namespace

TEST_CASE("every internal or reserved IPv4 range is refused, edges included", "[address_judge]") {
  const char* refused = GENERATE(
      "0.0.0.0", "0.255.255.255", "10.0.0.0", "10.255.255.255", "100.64.0.0", "100.127.255.255",
      "127.0.0.1", "127.255.255.254", "169.254.0.1", "169.254.169.254", "172.16.0.0",
      "172.31.255.255", "192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.0.1", "192.168.255.255",
      "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250",
      "240.0.0.1", "255.255.255.254", "255.255.255.255", "168.63.129.16");
  CAPTURE(refused);
  CHECK_FALSE(is_public(refused));
  CHECK_FALSE(category(refused).empty());
}

TEST_CASE("public IPv4 addresses next to the refused ranges are accepted", "[address_judge]") {
  const char* accepted =
      GENERATE("1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
               "126.255.255.255", "128.0.0.0", "169.253.255.255", "172.15.255.255", "172.32.0.0",
               "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0", "223.255.255.255",
               "168.63.129.15", "168.63.129.17");
  CAPTURE(accepted);
  CHECK(is_public(accepted));
}

TEST_CASE("the categories name what the address is", "[address_judge]") {
  CHECK(category("127.0.0.1") == "a loopback address");
  CHECK(category("10.1.2.3") == "a private network address");
  CHECK(category("100.64.1.1") == "a carrier-grade NAT address");
  CHECK(category("169.254.1.1") == "a link-local address");
  CHECK(category("224.0.0.1") == "a multicast address");
  CHECK(category("255.255.255.255") == "the broadcast address");
  CHECK(category("198.18.0.1") == "a benchmarking address");
  CHECK(category("192.0.2.1") == "a documentation address");
  CHECK(category("168.63.129.16").find("Azure") != std::string::npos);
}

TEST_CASE("IPv6 local, reserved and multicast ranges are refused", "[address_judge]") {
  const char* refused =
      GENERATE("::", "::1", "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "fec0::1", "ff02::1",
               "ff0e::1", "2001:db8::1", "2001::1", "2001:1ff::1", "100::1", "64:ff9b:1::1",
               "3fff::1", "5f00::1", "::2", "4000::1", "::a00:1");
  CAPTURE(refused);
  CHECK_FALSE(is_public(refused));
}

TEST_CASE("global unicast IPv6 is accepted", "[address_judge]") {
  const char* accepted = GENERATE("2606:4700::1111", "2a00:1450:4001::1", "2001:4860:4860::8888",
                                  "2001:200::1", "2620:fe::fe");
  CAPTURE(accepted);
  CHECK(is_public(accepted));
}

TEST_CASE("IPv4-mapped and NAT64 forms are judged as the IPv4 address they carry",
          "[address_judge]") {
  CHECK_FALSE(is_public("::ffff:127.0.0.1"));
  CHECK_FALSE(is_public("::ffff:10.0.0.1"));
  CHECK_FALSE(is_public("::ffff:169.254.169.254"));
  CHECK_FALSE(is_public("::ffff:168.63.129.16"));
  CHECK(is_public("::ffff:8.8.8.8"));
  CHECK_FALSE(is_public("64:ff9b::7f00:1"));
  CHECK_FALSE(is_public("64:ff9b::a9fe:a9fe"));
  CHECK_FALSE(is_public("64:ff9b::c0a8:101"));
  CHECK(is_public("64:ff9b::808:808"));
  CHECK(category("::ffff:127.0.0.1").find("127.0.0.1") != std::string::npos);
  CHECK(category("64:ff9b::a00:1").find("10.0.0.1") != std::string::npos);
}

TEST_CASE("6to4 addresses are judged by the IPv4 address they embed", "[address_judge]") {
  CHECK_FALSE(is_public("2002:7f00:1::1"));
  CHECK_FALSE(is_public("2002:c0a8:101::1"));
  CHECK(is_public("2002:808:808::1"));
}
