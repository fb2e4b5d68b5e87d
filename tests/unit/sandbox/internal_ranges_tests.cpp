#include <catch2/catch_test_macros.hpp>

#include "tests/support/result_printing.hpp"

#include <fmt/format.h>
#include <boost/json/parse.hpp>

#include "core/sandbox/policy_from_config.hpp"
#include "core/sandbox/policy_problems.hpp"

TEST_CASE("allowInternal is a list of address ranges; a malformed one is refused by name",
          "[sandbox][policy]") {
  const auto accepted = errand::sandbox::policy_from_config(
      boost::json::parse(R"({"sandbox": {"egress": {"allowInternal":
        ["10.1.2.0/24", "fd12:3456::/48", "192.168.7.9"]}}})")
          .as_object());
  REQUIRE(accepted);
  CHECK(accepted->allow_internal ==
        std::vector<std::string>{"10.1.2.0/24", "fd12:3456::/48", "192.168.7.9"});

  const auto refused = [](std::string_view value) {
    const auto config = boost::json::parse(
        fmt::format(R"({{"sandbox": {{"egress": {{"allowInternal": {}}}}}}})", value));
    auto policy = errand::sandbox::policy_from_config(config.as_object());
    REQUIRE_FALSE(policy);
    std::vector<errand::config::Problem> problems;
    errand::sandbox::check_sandbox_policy(config.as_object(), true, {}, problems);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].path == "sandbox.egress.allowInternal");
    CHECK(problems[0].message == policy.error().message);
    return policy.error().message;
  };
  CHECK(refused(R"(["10.1.2.0/33"])")
            .find("\"10.1.2.0/33\" is not an address range: the prefix "
                  "length must be a whole number from 0 to 32") != std::string::npos);
  CHECK(refused(R"(["10.1.2.5/24"])").find("10.1.2.5 has bits set below its /24 prefix") !=
        std::string::npos);
  CHECK(refused(R"(["mirror.lan/24"])").find("\"mirror.lan\" is not an IPv4 or IPv6 address") !=
        std::string::npos);
  CHECK(refused(R"(["10.1.2.0/"])").find("\"10.1.2.0/\"") != std::string::npos);
  CHECK(refused(R"(["fe80::1%eth0/128"])").find("not an IPv4 or IPv6 address") !=
        std::string::npos);
  CHECK(refused("true").find("no longer takes") != std::string::npos);
  CHECK(refused("[24]").find("not a string") != std::string::npos);
}
