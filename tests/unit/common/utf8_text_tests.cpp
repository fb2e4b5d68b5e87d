#include "common/utf8_text.hpp"

#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>

using errand::common::first_invalid_utf8;
using errand::common::is_valid_utf8;
using errand::common::utf8_characters;
using errand::common::with_invalid_utf8_replaced;

namespace {
const std::string kReplacement = "\xEF\xBF\xBD";
}

TEST_CASE("well-formed UTF-8 is recognised, up to U+10FFFF", "[common][utf8]") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8("plain ASCII, with a tab\t"));
  CHECK(is_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));  // é € 😀
  CHECK(is_valid_utf8("\xF4\x8F\xBF\xBF"));                           // U+10FFFF
}

TEST_CASE("malformed UTF-8 is refused, whichever way it is malformed", "[common][utf8]") {
  CHECK_FALSE(is_valid_utf8("\x80"));              // a continuation byte alone
  CHECK_FALSE(is_valid_utf8("\xC3"));              // truncated
  CHECK_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
  CHECK_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  CHECK_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong '/'
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));      // a surrogate
  CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  CHECK_FALSE(is_valid_utf8("\xFF"));
  CHECK_FALSE(is_valid_utf8(std::string("ok\xC3(", 4)));  // a lead byte not followed
}

TEST_CASE("each stray byte becomes one U+FFFD and the rest is kept", "[common][utf8]") {
  CHECK(with_invalid_utf8_replaced("caf\xC3\xA9") == "caf\xC3\xA9");
  CHECK(with_invalid_utf8_replaced("a\xFF"
                                   "b") == "a" + kReplacement + "b");
  CHECK(with_invalid_utf8_replaced("\xC0\xAF") == kReplacement + kReplacement);
  CHECK(with_invalid_utf8_replaced("end\xE2\x82") == "end" + kReplacement + kReplacement);
  CHECK(is_valid_utf8(with_invalid_utf8_replaced("\xED\xA0\x80 and \xF8\x88\x80\x80\x80")));
}

TEST_CASE("the first malformed byte is found by its offset, and characters are counted",
          "[common][utf8]") {
  CHECK_FALSE(first_invalid_utf8("caf\xC3\xA9").has_value());
  CHECK(first_invalid_utf8("abc\xFF"
                           "def") == std::optional<std::size_t>(3));
  CHECK(first_invalid_utf8("\xE2\x82\xAC\xE2\x82") == std::optional<std::size_t>(3));
  CHECK(utf8_characters("") == 0);
  CHECK(utf8_characters("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == 8);
}
