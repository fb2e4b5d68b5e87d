// The port of a URL is read from its text, digits only, from 1 to 65535.

#include <catch2/catch_test_macros.hpp>

#include "common/url_port.hpp"

using errand::common::read_port;

TEST_CASE("a port from 1 to 65535 written as digits is read") {
  CHECK(read_port("1") == 1);
  CHECK(read_port("443") == 443);
  CHECK(read_port("8080") == 8080);
  CHECK(read_port("65535") == 65535);
  CHECK(read_port("00080") == 80);
}

TEST_CASE("a port that is not one from 1 to 65535 in digits is refused") {
  CHECK_FALSE(read_port(""));
  CHECK_FALSE(read_port("0"));
  CHECK_FALSE(read_port("00000"));
  // port_number() would wrap these into range (0 and 4464).
  CHECK_FALSE(read_port("65536"));
  CHECK_FALSE(read_port("70000"));
  CHECK_FALSE(read_port("99999999999999999999"));
  CHECK_FALSE(read_port("000080"));
  CHECK_FALSE(read_port("-1"));
  CHECK_FALSE(read_port("+80"));
  CHECK_FALSE(read_port(" 80"));
  CHECK_FALSE(read_port("80 "));
  CHECK_FALSE(read_port("8o"));
  CHECK_FALSE(read_port("0x50"));
  CHECK_FALSE(read_port("5-b"));
}
