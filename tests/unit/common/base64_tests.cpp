#include "common/base64/base64.hpp"

#include <catch2/catch_test_macros.hpp>
#include <string>

namespace base64 = errand::base64;

TEST_CASE("base64 encodes RFC 4648's test vectors, padded, and the URL form without padding") {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
      // A Basic credential as the delegate command sends it to the broker.
      {"errand:s3cret", "ZXJyYW5kOnMzY3JldA=="}};
  for (const auto& [plain, encoded] : vectors) {
    INFO(plain);
    CHECK(base64::encode(plain) == encoded);
    std::string unpadded = encoded;
    while (!unpadded.empty() && unpadded.back() == '=') unpadded.pop_back();
    CHECK(base64::encode_url(plain) == unpadded);
    CHECK(base64::decode(encoded) == std::string(plain));
    CHECK(base64::decode(unpadded) == std::string(plain));
  }
  // The two letters the alphabets differ in, and every byte value through a round trip.
  const std::string high("\xfb\xff\xbf", 3);
  CHECK(base64::encode(high) == "+/+/");
  CHECK(base64::encode_url(high) == "-_-_");
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  CHECK(base64::decode(base64::encode(all)) == all);
}

TEST_CASE("base64 decoding refuses characters outside the alphabet and impossible lengths") {
  CHECK_FALSE(base64::decode("Zm9v!").has_value());
  CHECK_FALSE(base64::decode("-_-_").has_value());
  CHECK_FALSE(base64::decode("Zm9vY").has_value());
  CHECK_FALSE(base64::decode("Zm 9v").has_value());
}
