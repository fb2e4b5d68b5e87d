#include "core/chat/account_mention.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::chat::account_from_mention;
using errand::chat::shown_account;

TEST_CASE("a mention or a bare id names an account") {
  CHECK(account_from_mention("<@500000000000000005>").value() == "500000000000000005");
  CHECK(account_from_mention("<@!500000000000000005>").value() == "500000000000000005");
  CHECK(account_from_mention("500000000000000005").value() == "500000000000000005");
  CHECK(account_from_mention("18446744073709551615").value() == "18446744073709551615");
}

TEST_CASE("what is not an account is refused with what was written instead") {
  const auto refusal = [](std::string_view text) {
    auto parsed = account_from_mention(text);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().kind == errand::sdk::Error::Kind::refused);
    return parsed.error().message;
  };
  CHECK_THAT(refusal("<@&700000000000000007>"), ContainsSubstring("mentions a role"));
  CHECK_THAT(refusal("<#700000000000000007>"), ContainsSubstring("mentions a channel"));
  CHECK_THAT(refusal("<:emoji:123>"), ContainsSubstring("not a mention of an account"));
  CHECK_THAT(refusal("@bob"), ContainsSubstring("`@bob` is not an account"));
  CHECK_THAT(refusal("<@bob>"), ContainsSubstring("is not an account"));
  CHECK_THAT(refusal("<@>"), ContainsSubstring("is not an account"));
  CHECK_THAT(refusal("12a4"), ContainsSubstring("is not an account"));
  CHECK_THAT(refusal("0"), ContainsSubstring("between 1 and"));
  // One past the largest 64-bit number.
  CHECK_THAT(refusal("18446744073709551616"), ContainsSubstring("between 1 and"));
  CHECK_THAT(refusal("0500000000000000005"), ContainsSubstring("no leading zeros"));
  // A long paste is not echoed whole.
  const std::string pasted(5000, 'x');
  CHECK(refusal(pasted).size() < 300);
}

TEST_CASE("an account id is shown as a mention, the web interface as itself") {
  CHECK(shown_account("500000000000000005") == "<@500000000000000005>");
  CHECK(shown_account("web-interface") == "`web-interface`");
}
