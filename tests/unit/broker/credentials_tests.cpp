#include <catch2/catch_test_macros.hpp>

#include <array>
#include <regex>
#include <set>

#include "plugins/broker/admission/credentials.hpp"

using namespace errand::broker;

TEST_CASE("minted credentials are errand-session- and 64 lower-case hex digits", "[credentials]") {
  const std::regex shape("^errand-session-[0-9a-f]{64}$");
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const auto value = mint_credential();
    CHECK(std::regex_match(value, shape));
    CHECK(looks_like_credential(value));
    seen.insert(value);
  }
  CHECK(seen.size() == 200);
}

TEST_CASE("the digits are spread like random ones", "[credentials]") {
  std::array<int, 16> counts{};
  for (int i = 0; i < 500; ++i) {
    const auto value = mint_credential();
    for (std::size_t j = kCredentialPrefix.size(); j < value.size(); ++j) {
      const char c = value[j];
      ++counts[static_cast<std::size_t>(c <= '9' ? c - '0' : c - 'a' + 10)];
    }
  }
  // 32000 digits: each of the 16 should be near 2000.
  for (const int n : counts) {
    CHECK(n > 1700);
    CHECK(n < 2300);
  }
}

TEST_CASE("shapes that are not credentials are recognised", "[credentials]") {
  CHECK_FALSE(looks_like_credential("errand-session-"));
  CHECK_FALSE(looks_like_credential("errand-session-" + std::string(63, 'a')));
  CHECK_FALSE(looks_like_credential("errand-session-" + std::string(64, 'A')));
  CHECK_FALSE(looks_like_credential("sk-" + std::string(64, 'a')));
}

TEST_CASE("Basic and Bearer values are read", "[credentials]") {
  // base64("errand:secret-pass") and a user name with no password.
  CHECK(basic_auth_password("Basic ZXJyYW5kOnNlY3JldC1wYXNz") == "secret-pass");
  CHECK(basic_auth_password("basic   ZXJyYW5kOnNlY3JldC1wYXNz  ") == "secret-pass");
  CHECK(basic_auth_password("Basic ZXJyYW5kOg==") == "");
  CHECK_FALSE(basic_auth_password("Basic ZXJyYW5k"));  // no colon
  CHECK_FALSE(basic_auth_password("Basic !!!"));
  CHECK_FALSE(basic_auth_password("Bearer abc"));
  CHECK(bearer_token("Bearer tok") == "tok");
  CHECK(bearer_token("bearer  tok ") == "tok");
  CHECK_FALSE(bearer_token("Basic tok"));
}

TEST_CASE("constant-time comparison compares", "[credentials]") {
  CHECK(constant_time_equal("abc", "abc"));
  CHECK_FALSE(constant_time_equal("abc", "abd"));
  CHECK_FALSE(constant_time_equal("abc", "abcd"));
  CHECK(constant_time_equal("", ""));
}
