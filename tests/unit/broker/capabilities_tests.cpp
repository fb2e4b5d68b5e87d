#include <catch2/catch_test_macros.hpp>

#include "tests/support/result_printing.hpp"

#include <boost/json/parse.hpp>

#include "plugins/broker/admission/capabilities.hpp"

using namespace errand::broker;

TEST_CASE("* matches one segment and ** any number, none included", "[capabilities]") {
  CHECK(path_pattern_matches("/v1/messages", "/v1/messages"));
  CHECK_FALSE(path_pattern_matches("/v1/messages", "/v1/messages/count"));
  CHECK(path_pattern_matches("/v1/models/*", "/v1/models/claude"));
  CHECK_FALSE(path_pattern_matches("/v1/models/*", "/v1/models"));
  CHECK_FALSE(path_pattern_matches("/v1/models/*", "/v1/models/a/b"));
  CHECK(path_pattern_matches("/v1/**", "/v1"));
  CHECK(path_pattern_matches("/v1/**", "/v1/a"));
  CHECK(path_pattern_matches("/v1/**", "/v1/a/b/c"));
  CHECK_FALSE(path_pattern_matches("/v1/**", "/v2/a"));
  CHECK(path_pattern_matches("/**/count", "/count"));
  CHECK(path_pattern_matches("/**/count", "/a/b/count"));
  CHECK_FALSE(path_pattern_matches("/**/count", "/a/b/count/x"));
  CHECK(path_pattern_matches("/a/**/z/*", "/a/z/q"));
  CHECK(path_pattern_matches("/a/**/z/*", "/a/b/c/z/q"));
  CHECK_FALSE(path_pattern_matches("/a/**/z/*", "/a/b/c/z"));
  CHECK(path_pattern_matches("/**", "/"));
}

TEST_CASE("paths are matched as sent, before decoding", "[capabilities]") {
  CHECK_FALSE(path_pattern_matches("/v1/messages", "/v1/%6dessages"));
  CHECK(path_pattern_matches("/v1/files/*", "/v1/files/a%20b"));
}

TEST_CASE("a list matches method and path; * takes any method", "[capabilities]") {
  const auto list = CapabilityList::parse(boost::json::parse(R"([
    {"method": "POST", "path": "/v1/messages"},
    {"method": "GET", "path": "/v1/models/**"},
    {"method": "*", "path": "/v1/ping"}
  ])"));
  REQUIRE(list);
  CHECK(list->permits("POST", "/v1/messages"));
  CHECK_FALSE(list->permits("GET", "/v1/messages"));
  CHECK(list->permits("GET", "/v1/models"));
  CHECK(list->permits("GET", "/v1/models/x"));
  CHECK_FALSE(list->permits("DELETE", "/v1/models/x"));
  CHECK(list->permits("PATCH", "/v1/ping"));
  CHECK(list->describe() == "POST /v1/messages, GET /v1/models/**, * /v1/ping");
}

TEST_CASE("a lone star allows every call; an empty list is refused", "[capabilities]") {
  const auto all = CapabilityList::parse(boost::json::parse(R"("*")"));
  REQUIRE(all);
  CHECK(all->allows_everything());
  CHECK(all->permits("DELETE", "/anything/at/all"));
  const auto empty = CapabilityList::parse(boost::json::parse("[]"));
  REQUIRE_FALSE(empty);
  CHECK(empty.error().message.find("empty") != std::string::npos);
  CHECK_FALSE(CapabilityList::parse(boost::json::parse(R"([{"method": "GET"}])")));
  CHECK_FALSE(CapabilityList::parse(boost::json::parse("42")));
}

TEST_CASE("the entry naming a call is written as the configuration spells it", "[capabilities]") {
  CHECK(capability_entry("POST", "/v1/messages") ==
        R"({"method": "POST", "path": "/v1/messages"})");
  CHECK(capability_entry("GET", "/a\"b") == R"({"method": "GET", "path": "/a\"b"})");
}
