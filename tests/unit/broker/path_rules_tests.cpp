#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include "plugins/broker/admission/path_rules.hpp"

using namespace errand::broker;

TEST_CASE("ordinary provider paths pass", "[path_rules]") {
  const char* fine = GENERATE("/", "/v1/messages", "/v1/models/claude-3%2B1", "/a-b_c~d/e.f",
                              "/v1/files/file%20name", "/v1/..a", "/v1/a..", "/%252e%252e");
  CAPTURE(fine);
  CHECK(check_forwardable_path(fine).has_value());
}

TEST_CASE("paths a server could read differently are refused", "[path_rules]") {
  const char* refused =
      GENERATE("", "v1/messages", "//v1", "/v1//messages", "/v1/messages/", "/./v1", "/v1/.",
               "/v1/..", "/v1/../admin", "/v1/%2e", "/v1/%2E%2e/admin", "/v1/.%2e", "/v1/%2fadmin",
               "/v1/a%2Fb", "/v1/a%5cb", "/v1/a\\b", "/v1/messages;jsessionid=1", "/v1;x/messages",
               "/v1/%zz", "/v1/%4", "/v1/a%00b", "/v1/a%0d%0ab", "/v1/messages#frag");
  CAPTURE(refused);
  const auto checked = check_forwardable_path(refused);
  REQUIRE_FALSE(checked.has_value());
  CHECK_FALSE(checked.error().message.empty());
}

TEST_CASE("refusal reasons say what is wrong", "[path_rules]") {
  CHECK(check_forwardable_path("/v1//x").error().message.find("empty segment") !=
        std::string::npos);
  CHECK(check_forwardable_path("/v1/%2e%2e").error().message.find("decodes to '..'") !=
        std::string::npos);
  CHECK(check_forwardable_path("/v1/a;b").error().message.find("';'") != std::string::npos);
  CHECK(check_forwardable_path("/v1/a%2fb").error().message.find("slash") != std::string::npos);
}

TEST_CASE("targets split at the first question mark", "[path_rules]") {
  const auto split = split_target("/v1/messages?beta=true&key=x?y");
  CHECK(split.path == "/v1/messages");
  CHECK(split.has_query);
  CHECK(split.query == "beta=true&key=x?y");
  const auto plain = split_target("/v1/models");
  CHECK_FALSE(plain.has_query);
  CHECK(plain.query.empty());
}

TEST_CASE("percent decoding is strict, and lenient for receipts", "[path_rules]") {
  CHECK(percent_decode("a%20b%2Fc") == "a b/c");
  CHECK_FALSE(percent_decode("a%2"));
  CHECK_FALSE(percent_decode("%g0"));
  CHECK(percent_decode_lenient("a%2") == "a%2");
  CHECK(percent_decode_lenient("%41%zz") == "A%zz");
}

TEST_CASE("receipt paths escape controls and stop at 256 bytes whole", "[path_rules]") {
  CHECK(receipt_path_text("/a\nb\x7f") == "/a\\x0ab\\x7f");
  CHECK(escape_controls("a\\b") == "a\\\\b");
  const std::string long_path = "/" + std::string(300, 'p');
  CHECK(receipt_path_text(long_path).size() == 256);
  // An escape is never split: 254 bytes, then "\x01" would pass 256.
  const std::string near = "/" + std::string(253, 'p') + "\x01";
  CHECK(receipt_path_text(near) == "/" + std::string(253, 'p'));
  // Nor is a UTF-8 sequence.
  const std::string utf = "/" + std::string(254, 'p') + "\xc3\xa9";
  CHECK(receipt_path_text(utf) == "/" + std::string(254, 'p'));
}
