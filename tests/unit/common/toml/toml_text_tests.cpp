#include <toml++/toml.h>
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "common/toml/toml_text.hpp"

namespace toml_text = errand::toml_text;

namespace {

// What a TOML reader makes of `k = <value>`.
toml::parse_result read_back(const std::string& value) {
  return toml::parse("k = " + value + "\n");
}

}  // namespace

TEST_CASE("strings are basic strings with quotes, backslashes and control characters escaped") {
  CHECK(toml_text::string("a\"b\\c\nd\x01") == "\"a\\\"b\\\\c\\nd\\u0001\"");
  CHECK(toml_text::string("") == "\"\"");
  // No literal or multi-line forms, whatever the content.
  CHECK(toml_text::string("C:\\path") == "\"C:\\\\path\"");
  CHECK(toml_text::string("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
  for (const std::string text : {"tab\there\x7f", "line\nbreak", "'single'", "caf\xc3\xa9", ""}) {
    INFO(text);
    const auto back = read_back(toml_text::string(text));
    REQUIRE(back);
    CHECK(back.table()["k"].value<std::string>() == text);
  }
}

TEST_CASE("keys are bare when they can be and quoted otherwise") {
  CHECK(toml_text::key("PATH") == "PATH");
  CHECK(toml_text::key("under_score-dash9") == "under_score-dash9");
  CHECK(toml_text::key("has space") == "\"has space\"");
  CHECK(toml_text::key("a.b") == "\"a.b\"");
  CHECK(toml_text::key("") == "\"\"");
  const auto back = toml::parse(toml_text::key("a.b \"c\"") + " = 1\n");
  REQUIRE(back);
  CHECK(back.table()["a.b \"c\""].value<std::int64_t>() == 1);
}

TEST_CASE("arrays are written on one line and read back in order") {
  CHECK(toml_text::strings({}) == "[]");
  CHECK(toml_text::strings({"/usr", "a \"b\""}) == "[\"/usr\", \"a \\\"b\\\"\"]");
  CHECK(toml_text::integers({}) == "[]");
  CHECK(toml_text::integers({443, -1, 80}) == "[443, -1, 80]");
  const auto back = read_back(toml_text::integers({443, -1, 80}));
  REQUIRE(back);
  const auto* array = back.table()["k"].as_array();
  REQUIRE(array != nullptr);
  REQUIRE(array->size() == 3);
  CHECK(array->get(1)->value<std::int64_t>() == -1);
}
