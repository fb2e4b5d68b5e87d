// Case is ASCII case: header names, host names and command words, never a locale's idea of it.

#include <boost/beast/core/string.hpp>
#include <catch2/catch_test_macros.hpp>

#include "common/ascii_case.hpp"

using errand::common::ascii_lower;
using errand::common::istarts_with;

TEST_CASE("iequals compares ASCII letters without case, and nothing else") {
  using boost::beast::iequals;
  CHECK(iequals("Content-Length", "content-length"));
  CHECK(iequals("X-API-KEY", "x-api-key"));
  CHECK(iequals("", ""));
  CHECK_FALSE(iequals("identity", "identit"));
  CHECK_FALSE(iequals("gzip", "gzip "));
  // '@' and '`' sit one away from 'A' and 'a'; case folding must not pair them with '['/'{'.
  CHECK_FALSE(iequals("[", "{"));
  CHECK_FALSE(iequals("@", "`"));
  CHECK_FALSE(iequals("\xc3\x89", "\xc3\xa9"));  // É and é: bytes beyond ASCII stay distinct
}

TEST_CASE("ascii_lower lowers A to Z and leaves every other byte") {
  CHECK(ascii_lower("API.Example.COM") == "api.example.com");
  CHECK(ascii_lower("Stop") == "stop");
  CHECK(ascii_lower("") == "");
  CHECK(ascii_lower("[@Z`]") == "[@z`]");
  CHECK(ascii_lower("\xc3\x89t\xc3\xa9") == "\xc3\x89t\xc3\xa9");
}

TEST_CASE("istarts_with matches a prefix without case") {
  CHECK(istarts_with("Bearer sk-123", "bearer "));
  CHECK(istarts_with("BASIC abc", "basic "));
  CHECK(istarts_with("Proxy-Authorization", "proxy-"));
  CHECK(istarts_with("anything", ""));
  CHECK_FALSE(istarts_with("Bearer", "bearer "));
  CHECK_FALSE(istarts_with("Basically", "basic "));
  CHECK_FALSE(istarts_with("", "a"));
}
