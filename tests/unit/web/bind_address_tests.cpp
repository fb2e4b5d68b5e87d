// The web interface's bind check: every form the issue allows is accepted, and a wildcard, a
// public address or a host name is refused with a sentence saying what to write instead.

#include "core/web/http/bind_address.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::sdk::Error;
using errand::test::ok;
using errand::web::bind_address_of;

TEST_CASE("loopback, private, link-local and tailnet addresses are accepted as written") {
  const auto [written, bound] = GENERATE(table<std::string, std::string>({
      {"127.0.0.1", "127.0.0.1"},
      {"127.45.6.7", "127.45.6.7"},
      {"10.0.0.1", "10.0.0.1"},
      {"10.255.255.254", "10.255.255.254"},
      {"172.16.0.1", "172.16.0.1"},
      {"172.31.255.1", "172.31.255.1"},
      {"192.168.1.20", "192.168.1.20"},
      {"169.254.10.1", "169.254.10.1"},
      {"100.64.0.1", "100.64.0.1"},
      {"100.127.255.254", "100.127.255.254"},
      {"::1", "::1"},
      {"[::1]", "::1"},
      {"fe80::1", "fe80::1"},
      {"[fe80::abcd]", "fe80::abcd"},
      {"febf::1", "febf::1"},
      {"fc00::1", "fc00::1"},
      {"fd12:3456::7", "fd12:3456::7"},
      {"::ffff:127.0.0.1", "127.0.0.1"},
      {"[::ffff:192.168.0.9]", "192.168.0.9"},
      {"localhost", "127.0.0.1"},
      {"LocalHost", "127.0.0.1"},
  }));
  CAPTURE(written);
  const auto address = bind_address_of(written);
  REQUIRE(ok(address));
  CHECK(address->to_string() == bound);
}

TEST_CASE("a wildcard is refused: it binds every interface, public ones too") {
  const auto written = GENERATE("0.0.0.0", "::", "[::]", "::ffff:0.0.0.0");
  CAPTURE(written);
  const auto address = bind_address_of(written);
  REQUIRE_FALSE(address);
  CHECK(address.error().kind == Error::Kind::refused);
  CHECK_THAT(address.error().message, ContainsSubstring("a wildcard binds every interface, "
                                                        "public ones too"));
  CHECK_THAT(address.error().message, ContainsSubstring("127.0.0.1"));
}

TEST_CASE("a public address is refused, just outside each allowed range too") {
  const auto written =
      GENERATE("8.8.8.8", "1.1.1.1", "11.0.0.1", "9.255.255.255", "172.15.255.1", "172.32.0.1",
               "192.169.0.1", "169.255.0.1", "100.63.255.255", "100.128.0.1", "128.0.0.1",
               "2001:db8::1", "2606:4700::1111", "fec0::1", "fe00::1", "fbff::1", "::2",
               "::ffff:8.8.8.8", "[2001:4860:4860::8888]");
  CAPTURE(written);
  const auto address = bind_address_of(written);
  REQUIRE_FALSE(address);
  CHECK(address.error().kind == Error::Kind::refused);
  CHECK_THAT(address.error().message,
             ContainsSubstring(std::string(written) + " is a public address; "));
  CHECK_THAT(address.error().message, ContainsSubstring("such as 127.0.0.1"));
}

TEST_CASE("a host name other than localhost is refused: it can resolve to anything") {
  const auto written = GENERATE("example.com", "errand.local", "localhost.example.com", "my-laptop",
                                "[localhost]", "127.0.0.1:8787", "");
  CAPTURE(written);
  const auto address = bind_address_of(written);
  REQUIRE_FALSE(address);
  CHECK(address.error().kind == Error::Kind::refused);
  if (std::string_view(written).empty()) {
    CHECK_THAT(address.error().message, ContainsSubstring("is empty"));
  } else {
    CHECK_THAT(address.error().message,
               ContainsSubstring("a host name can resolve to anything; write an address"));
  }
}
