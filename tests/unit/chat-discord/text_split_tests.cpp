#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "plugins/chat-discord/text_split.hpp"

using errand::discord::count_code_points;
using errand::discord::split_message;

namespace {

std::string repeated_text(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

bool valid_utf8_boundaries(const std::string& s) {
  if (s.empty()) return true;
  const auto first = static_cast<unsigned char>(s.front());
  if ((first & 0xC0) == 0x80) return false;
  // The last sequence must be complete.
  std::size_t i = s.size();
  std::size_t back = 0;
  while (i > 0 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) {
    --i;
    ++back;
  }
  if (i == 0) return false;
  const auto lead = static_cast<unsigned char>(s[i - 1]);
  const std::size_t need = lead < 0x80 ? 0 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
  return need == back;
}

std::size_t fences_in(const std::string& part) {
  std::size_t n = 0;
  std::size_t at = 0;
  while (at < part.size()) {
    const auto end = part.find('\n', at);
    const auto line = part.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.rfind("```", 0) == 0) ++n;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return n;
}

}  // namespace

TEST_CASE("counting code points, not bytes") {
  CHECK(count_code_points("abc") == 3);
  CHECK(count_code_points("\xC3\xA9t\xC3\xA9") == 3);             // été
  CHECK(count_code_points("\xF0\x9F\x98\x80\xE2\x82\xAC") == 2);  // emoji + euro sign
}

TEST_CASE("text within the limit is one part and empty text is none") {
  CHECK(split_message("", 2000).empty());
  const auto exact = repeated_text("a", 2000);
  REQUIRE(split_message(exact, 2000) == std::vector<std::string>{exact});
  const auto parts = split_message(repeated_text("a", 2001), 2000);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].size() == 2000);
  CHECK(parts[1] == "a");
}

TEST_CASE("multi-byte text is cut by code points at sequence boundaries") {
  // 3000 two-byte characters and some four-byte ones: more than 2000 bytes per 1000 chars.
  const auto text = repeated_text("\xC3\xA9", 2500) + repeated_text("\xF0\x9F\x98\x80", 1000);
  const auto parts = split_message(text, 2000);
  REQUIRE(parts.size() == 2);
  std::string joined;
  for (const auto& p : parts) {
    CHECK(count_code_points(p) <= 2000);
    CHECK(valid_utf8_boundaries(p));
    joined += p;
  }
  CHECK(count_code_points(parts[0]) == 2000);
  CHECK(joined == text);
}

TEST_CASE("long text is cut at line ends") {
  std::string text;
  for (int i = 0; i < 60; ++i)
    text += "line " + std::to_string(i) + " " + repeated_text("x", 90) + "\n";
  const auto parts = split_message(text, 2000);
  REQUIRE(parts.size() >= 3);
  std::string joined;
  for (const auto& p : parts) {
    CHECK(count_code_points(p) <= 2000);
    CHECK(p.rfind("line ", 0) == 0);  // every part starts at a line start
    CHECK(p.back() == 'x');           // and ends at a line end
    joined += p + "\n";
  }
  CHECK(joined == text);
}

TEST_CASE("a code block cut in two is closed and reopened with its info string") {
  std::string code;
  for (int i = 0; i < 200; ++i) code += "print('row " + std::to_string(i) + "')\n";
  const auto text = "Here is the script:\n```python\n" + code + "```\nThat is all.";
  const auto parts = split_message(text, 2000);
  REQUIRE(parts.size() >= 2);
  std::string code_seen;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    CHECK(count_code_points(p) <= 2000);
    CHECK(fences_in(p) % 2 == 0);  // every part has balanced fences
    if (i > 0) CHECK(p.rfind("```python\n", 0) == 0);
    if (i + 1 < parts.size()) CHECK(p.size() >= 3);
    if (i + 1 < parts.size()) CHECK(p.substr(p.size() - 3) == "```");
    std::size_t at = 0;
    while ((at = p.find("print('row ", at)) != std::string::npos) {
      const auto end = p.find('\n', at);
      code_seen += p.substr(at, end - at) + "\n";
      at = end;
    }
  }
  CHECK(code_seen == code);
  CHECK(parts.back().find("That is all.") != std::string::npos);
}

TEST_CASE("a part never ends on the line that opens a fence") {
  // The opening line would fit at the end of the first part, but nothing after it would.
  const auto text = repeated_text("y", 1980) + "\n```js\n" + repeated_text("z", 50) + "\n```";
  const auto parts = split_message(text, 2000);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0] == repeated_text("y", 1980));
  CHECK(parts[1] == "```js\n" + repeated_text("z", 50) + "\n```");
}

TEST_CASE("a single line longer than the limit is cut at code point boundaries") {
  const auto line = repeated_text("\xE2\x82\xAC", 4500);  // euro signs, three bytes each
  const auto parts = split_message(line, 2000);
  REQUIRE(parts.size() == 3);
  CHECK(count_code_points(parts[0]) == 2000);
  CHECK(count_code_points(parts[1]) == 2000);
  CHECK(count_code_points(parts[2]) == 500);
  for (const auto& p : parts) CHECK(valid_utf8_boundaries(p));
}

TEST_CASE("a long line inside a code block keeps every part fenced") {
  const auto text = "```\n" + repeated_text("q", 4500) + "\n```";
  const auto parts = split_message(text, 2000);
  REQUIRE(parts.size() >= 3);
  std::size_t qs = 0;
  for (const auto& p : parts) {
    CHECK(count_code_points(p) <= 2000);
    CHECK(p.rfind("```", 0) == 0);
    CHECK(p.substr(p.size() - 3) == "```");
    qs += static_cast<std::size_t>(std::count(p.begin(), p.end(), 'q'));
  }
  CHECK(qs == 4500);
}
