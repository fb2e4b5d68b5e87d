#include "tests/unit/chat/render/renderer_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::chat::ThreadRenderer;
using errand::test::RendererHarness;

namespace {

std::size_t fence_lines(const std::string& text) {
  std::size_t count = 0, pos = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    const auto line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (line.rfind("```", 0) == 0) ++count;
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return count;
}

}  // namespace

TEST_CASE("streamed text becomes one message, edited no more often than the transport allows") {
  RendererHarness h({}, 2000, 60ms);
  std::string expected;
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    for (int i = 0; i < 40; ++i) {
      const auto chunk = "word" + std::to_string(i) + " ";
      expected += chunk;
      r.text(chunk);
      co_await h.pause(6ms);
    }
  });
  REQUIRE(h.transport.posts.size() == 1);
  CHECK(h.transport.thread_text().front() == expected);
  // About 240 ms of streaming at one edit per 60 ms: a handful of edits, not forty.
  CHECK(h.transport.edits.size() >= 2);
  CHECK(h.transport.edits.size() <= 6);
  auto last = h.transport.posts.front().at;
  for (const auto& edit : h.transport.edits) {
    CHECK(edit.at - last >= 60ms);
    last = edit.at;
  }
}

TEST_CASE("text past max_message_chars continues in a new message and nothing is lost") {
  RendererHarness h({}, 200, 1ms);
  std::string expected;
  for (int line = 0; line < 30; ++line)
    expected += "line " + std::to_string(line) + " of the answer, with some words in it\n";
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    for (std::size_t at = 0; at < expected.size(); at += 37) {
      r.text(std::string_view(expected).substr(at, 37));
      co_await h.pause(1ms);
    }
  });
  const auto messages = h.transport.thread_text();
  CHECK(messages.size() >= expected.size() / 200 + 1);
  CHECK(h.transport.oversized.empty());
  std::string joined;
  for (const auto& m : messages) {
    CHECK(m.size() <= 200);
    joined += m;
  }
  CHECK(joined == expected);
  // Cuts fall at the end of a line.
  for (std::size_t i = 0; i + 1 < messages.size(); ++i) CHECK(messages[i].back() == '\n');
}

TEST_CASE("a code fence cut between messages is closed and opened again with its language") {
  RendererHarness h({}, 200, 1ms);
  std::string text = "Here is the change:\n```cpp\n";
  for (int i = 0; i < 25; ++i)
    text += "int value_" + std::to_string(i) + " = " + std::to_string(i) + ";\n";
  text += "```\nThat is all.\n";
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.text(text);
    co_return;
  });
  const auto messages = h.transport.thread_text();
  REQUIRE(messages.size() >= 3);
  for (const auto& m : messages) {
    CHECK(fence_lines(m) % 2 == 0);
    CHECK(m.size() <= 200);
  }
  CHECK_THAT(messages[1], StartsWith("```cpp\n"));
  CHECK_THAT(messages.back(), ContainsSubstring("That is all."));
}

TEST_CASE("the last word waits while streaming, so half a secret is never shown") {
  RendererHarness h({}, 2000, 1ms);
  const std::string secret(errand::test::kConfiguredSecret);
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.text("the key is " + secret.substr(0, 12));
    co_await h.pause(20ms);
    r.text(secret.substr(12) + " and the stand-in is " + errand::test::kStandIn.substr(0, 30));
    co_await h.pause(20ms);
    r.text(errand::test::kStandIn.substr(30) + " done");
  });
  const auto sent = h.transport.everything_sent();
  CHECK_THAT(sent, !ContainsSubstring(secret.substr(0, 12)));
  CHECK_THAT(sent, !ContainsSubstring(errand::test::kStandIn.substr(0, 20)));
  CHECK(h.transport.thread_text().back() ==
        "the key is [redacted] and the stand-in is [redacted] done");
}

TEST_CASE("a notice is scrubbed and split like agent text") {
  RendererHarness h({}, 120, 1ms);
  std::string listing = "```\n";
  for (int i = 0; i < 20; ++i) listing += "file" + std::to_string(i) + ".txt\n";
  listing += "```";
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.notice("token: " + std::string(errand::test::kConfiguredSecret), {"u1"});
    r.notice(listing);
    co_return;
  });
  const auto messages = h.transport.thread_text();
  REQUIRE(messages.size() >= 3);
  CHECK(messages[0] == "token: [redacted]");
  CHECK(h.transport.posts[0].message.mention_user_ids == std::vector<std::string>{"u1"});
  for (const auto& m : messages) CHECK(fence_lines(m) % 2 == 0);
}

TEST_CASE("text is scrubbed before it is cut into messages, so a cut never halves a secret") {
  RendererHarness h({}, 200, 1ms);
  const std::string secret(errand::test::kConfiguredSecret);
  // No space anywhere: the cut falls at the byte limit, which lies inside the raw secret.
  const auto text = std::string(185, 'x') + secret + std::string(300, 'y');
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.text(text);
    co_return;
  });
  const auto sent = h.transport.everything_sent();
  CHECK_THAT(sent, !ContainsSubstring(secret.substr(0, 8)));
  CHECK_THAT(sent, !ContainsSubstring(secret.substr(secret.size() - 8)));
  CHECK_THAT(h.transport.thread_text().front(), ContainsSubstring("[redacted]"));
}
