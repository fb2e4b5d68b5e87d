// The readers of the agent's answers to errand's own calls, on answers an agent could send that
// a well-behaved one never does; each came from the property fuzz_acp_output checks.

#include "core/agent/acp_requests.hpp"
#include "tests/support/result_printing.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand::agent;
namespace json = boost::json;

TEST_CASE("initialize accepts protocol version 1 only, however wide the number sent") {
  const auto answer = [](std::string_view version) {
    return parse_initialize_result(
        json::parse(std::string(R"({"protocolVersion":)") + std::string(version) + "}"));
  };
  const auto one = answer("1");
  REQUIRE(one);
  CHECK(one->protocol_version == 1);
  // 2^32 + 1 narrowed to an int is 1: it must not pass for version 1.
  const auto wide = answer("4294967297");
  REQUIRE_FALSE(wide);
  CHECK(wide.error().message.find("version 4294967297 ") != std::string::npos);
  // Past the int64 range the number is unsigned; reading it must refuse, not throw.
  std::optional<decltype(wide)> huge;
  CHECK_NOTHROW(huge.emplace(answer("18446744073709551615")));
  REQUIRE_FALSE(*huge);
  CHECK((*huge).error().message.find("18446744073709551615") != std::string::npos);
  CHECK_FALSE(answer("-1"));
  CHECK_FALSE(answer("1.0"));
}
