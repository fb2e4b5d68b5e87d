#include "core/chat/render/message_split.hpp"
#include "core/chat/render/output_format.hpp"
#include "core/chat/render/render_settings.hpp"
#include "core/chat/render/unified_diff.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using namespace errand::chat;

TEST_CASE("splitting never cuts inside a UTF-8 sequence") {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "\xC3\xA9\xE2\x82\xAC";  // é€, no spaces, no newlines
  const auto pieces = split_message(text, 64);
  std::string joined;
  for (const auto& p : pieces) {
    CHECK(p.text.size() <= 64);
    // A piece never starts with a continuation byte.
    CHECK((static_cast<unsigned char>(p.text.front()) & 0xC0) != 0x80);
    joined += p.text;
  }
  CHECK(joined == text);
}

TEST_CASE("fence state follows opening and closing lines") {
  auto state = fence_after("text\n```python\nx = 1\n");
  CHECK(state.open);
  CHECK(state.info == "python");
  state = fence_after("```\n", state);
  CHECK_FALSE(state.open);
  // ``` in the middle of a line is not a fence; a partial line is judged once it ends.
  CHECK_FALSE(fence_after("say ```hi``` now\n").open);
  CHECK_FALSE(fence_after("```rust").open);
  CHECK(fence_after("```rust\n").open);
}

TEST_CASE("a piece ending inside a fence is closed and the next one reopens it") {
  std::string text = "```sh\n";
  for (int i = 0; i < 20; ++i) text += "echo " + std::to_string(i) + "\n";
  text += "```\n";
  const auto pieces = split_message(text, 64);
  REQUIRE(pieces.size() > 1);
  CHECK(pieces[0].text.ends_with("\n```"));
  CHECK(pieces[1].text.starts_with("```sh\n"));
  std::size_t covered = 0;
  for (const auto& p : pieces) covered += p.consumed;
  CHECK(covered == text.size());
}

TEST_CASE("unified diffs name their hunks as diff(1) does") {
  const auto diff = unified_diff(std::string("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"),
                                 "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n");
  CHECK(diff.added == 2);
  CHECK(diff.removed == 2);
  CHECK(diff.text ==
        "@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n"
        "@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n");
  CHECK(unified_diff(std::string("same\n"), "same\n").text.empty());
  const auto deleted_all = unified_diff(std::string("a\nb\n"), "");
  CHECK(deleted_all.text == "@@ -1,2 +0,0 @@\n-a\n-b\n");
}

TEST_CASE("past the edit distance bound, the whole text is shown replaced") {
  const auto diff = unified_diff(std::string("a\nb\nc\n"), "x\ny\nz\n", 3, 2);
  CHECK(diff.removed == 3);
  CHECK(diff.added == 3);
  CHECK(diff.text == "@@ -1,3 +1,3 @@\n-a\n-b\n-c\n+x\n+y\n+z\n");
}

TEST_CASE("inline code keeps one line and cannot be broken out of by backticks") {
  CHECK(inline_code("ls -la") == "`ls -la`");
  CHECK(inline_code("echo `date`") == "`` echo `date` ``");
  CHECK(inline_code("line one\nline two") == "`line one ...`");
  CHECK(inline_code(std::string(300, 'a'), 10) == "`aaaaaaaaaa ...`");
  CHECK(inline_code("") == "`(untitled)`");
}

TEST_CASE("truncation keeps the head and the tail within the limit") {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>('a' + i % 26);
  const auto cut = truncate_middle(text, 200);
  CHECK(cut.size() <= 200);
  CHECK(cut.starts_with("abcdef"));
  CHECK(cut.ends_with(text.substr(text.size() - 20)));
  CHECK_THAT(cut, ContainsSubstring("characters not shown"));
  CHECK(truncate_middle("short", 200) == "short");
  CHECK(fenced("a ``` b") == "```\na ''' b\n```");
}

TEST_CASE("render settings come from output.* and bad values are refused",
          "[key:output.forwardToolOutput]"
          "[key:output.maxToolOutputChars]"
          "[key:output.postDiffs]") {
  boost::json::object config{
      {"output", {{"forwardToolOutput", true}, {"maxToolOutputChars", 99}, {"postDiffs", false}}}};
  auto settings = render_settings_from_config(config);
  REQUIRE(settings.has_value());
  CHECK(settings->forward_tool_output);
  CHECK(settings->max_tool_output_chars == 99);
  CHECK_FALSE(settings->post_diffs);
  CHECK(render_settings_from_config({}).value().post_diffs);
  config["output"].as_object()["postDiffs"] = "yes";
  CHECK_FALSE(render_settings_from_config(config).has_value());
}
