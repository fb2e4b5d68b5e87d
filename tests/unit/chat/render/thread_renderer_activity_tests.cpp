#include "tests/unit/chat/render/renderer_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::chat::FileChange;
using errand::chat::RenderSettings;
using errand::chat::ThreadRenderer;
using errand::chat::ToolCallEnd;
using errand::chat::ToolCallStart;
using errand::chat::ToolStatus;
using errand::sdk::Reaction;
using errand::test::kConfiguredSecret;
using errand::test::kStandIn;
using errand::test::RendererHarness;

namespace {

RenderSettings forwarding(std::size_t max_output) {
  RenderSettings s;
  s.forward_tool_output = true;
  s.max_tool_output_chars = max_output;
  return s;
}

std::string long_output() {
  std::string out;
  for (int i = 0; i < 200; ++i) out += "test case " + std::to_string(i) + " ... ok\n";
  return out + "error: 3 tests failed\n";
}

}  // namespace

TEST_CASE("a tool call is one line, edited with its outcome and its output cut to the limit",
          "[key:output.maxToolOutputChars]") {
  RendererHarness h(forwarding(300), 2000, 5ms);
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.tool_started(ToolCallStart{"t1", "cargo test --all"});
    co_await h.pause(20ms);
    r.tool_finished(ToolCallEnd{"t1", "", ToolStatus::failed, 101, long_output()});
  });
  REQUIRE(h.transport.posts.size() == 1);
  CHECK(h.transport.posts[0].message.text == "running `cargo test --all`");
  REQUIRE(h.transport.edits.size() == 1);
  const auto& shown = h.transport.edits[0].text;
  CHECK_THAT(shown, StartsWith("`cargo test --all` failed: exit 101\n```\ntest case 0 ... ok"));
  CHECK_THAT(shown, ContainsSubstring("characters not shown"));
  CHECK_THAT(shown, ContainsSubstring("error: 3 tests failed"));
  const auto fence = shown.find("```\n");
  CHECK(shown.size() - fence - 4 - 3 <= 300);
}

TEST_CASE("tool output stays out of the thread unless output.forwardToolOutput is set",
          "[key:output.forwardToolOutput]") {
  RendererHarness h({}, 2000, 1ms);
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.tool_started(ToolCallStart{"t1", "make"});
    r.tool_finished(ToolCallEnd{"t1", "", ToolStatus::completed, 0, "lots of output"});
    co_return;
  });
  // Start and end arrived together: one message with the outcome, no edit.
  REQUIRE(h.transport.posts.size() == 1);
  CHECK(h.transport.edits.empty());
  CHECK(h.transport.posts[0].message.text == "ran `make`: exit 0");
}

TEST_CASE("secrets and stand-ins are scrubbed from tool titles and tool output") {
  RendererHarness h(forwarding(1500), 2000, 1ms);
  const std::string secret(kConfiguredSecret);
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.tool_started(ToolCallStart{"t1", "curl -H 'x-api-key: " + kStandIn + "' https://api"});
    r.tool_finished(ToolCallEnd{"t1", "", ToolStatus::completed, 0,
                                "token=" + secret + "\nkey=" + kStandIn + "\n"});
    co_return;
  });
  const auto sent = h.transport.everything_sent();
  CHECK_THAT(sent, !ContainsSubstring(secret));
  CHECK_THAT(sent, !ContainsSubstring(kStandIn));
  CHECK_THAT(sent, ContainsSubstring("token=[redacted]\nkey=[redacted]"));
  CHECK_THAT(sent, ContainsSubstring("x-api-key: [redacted]"));
}

TEST_CASE("a secret cut in two by output truncation is still scrubbed") {
  RendererHarness h(forwarding(200), 2000, 1ms);
  const std::string secret(kConfiguredSecret);
  // The secret sits where the head of the truncated output ends.
  std::string output = std::string(60, 'x') + secret + std::string(400, 'y');
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.tool_finished(ToolCallEnd{"t9", "cat log", ToolStatus::completed, std::nullopt, output});
    co_return;
  });
  const auto sent = h.transport.everything_sent();
  CHECK_THAT(sent, !ContainsSubstring(secret.substr(0, 10)));
}

TEST_CASE("a changed file is shown as a unified diff in a diff fence") {
  RendererHarness h({}, 2000, 1ms);
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.file_changed(FileChange{"src/main.cpp", std::string("a\nb\nc\n"), "a\nB\nc\nd\n"});
    r.file_changed(FileChange{"notes.txt", std::nullopt, "hello\n"});
    r.file_changed(FileChange{"same.txt", std::string("x\n"), "x\n"});
    co_return;
  });
  const auto messages = h.transport.thread_text();
  REQUIRE(messages.size() == 2);
  CHECK(messages[0] ==
        "changed `src/main.cpp` (+2 -1)\n```diff\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n```");
  CHECK(messages[1] == "created `notes.txt` (+1)\n```diff\n@@ -0,0 +1,1 @@\n+hello\n```");
}

TEST_CASE("a long diff is cut at a whole line to fit one message, with a note") {
  RendererHarness h({}, 500, 1ms);
  std::string before, after;
  for (int i = 0; i < 200; ++i) {
    before += "old line " + std::to_string(i) + "\n";
    after += "new line " + std::to_string(i) + " with " + std::string(kConfiguredSecret) + "\n";
  }
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.file_changed(FileChange{"big.txt", before, after});
    co_return;
  });
  REQUIRE(h.transport.posts.size() == 1);
  const auto& text = h.transport.posts[0].message.text;
  CHECK(text.size() <= 500);
  CHECK_THAT(text, StartsWith("changed `big.txt` (+200 -200)\n```diff\n@@ -1,200 +1,200 @@\n"));
  CHECK_THAT(text, ContainsSubstring("more diff lines not shown"));
  CHECK_THAT(text, !ContainsSubstring(std::string(kConfiguredSecret)));
  const auto close = text.find("\n```\n(");
  REQUIRE(close != std::string::npos);
}

TEST_CASE("no diff is posted when output.postDiffs is off", "[key:output.postDiffs]") {
  RenderSettings settings;
  settings.post_diffs = false;
  RendererHarness h(settings, 2000, 1ms);
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.file_changed(FileChange{"a.txt", std::string("1\n"), "2\n"});
    co_return;
  });
  CHECK(h.transport.posts.empty());
}

TEST_CASE("an upload holding a secret is refused whole and the asker is told why") {
  RendererHarness h({}, 2000, 1ms);
  errand::sdk::Result<void> with_stand_in, clean;
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    // Named arguments: GCC 12 mishandles braced temporaries inside a co_await expression.
    errand::sdk::OutFile env{"env.txt", "text/plain", "KEY=" + kStandIn + "\n"};
    errand::sdk::OutFile report{"report.txt", "text/plain", "all good\n"};
    auto refused = co_await r.upload(std::move(env), "u1");
    auto posted = co_await r.upload(std::move(report), "u1", "the report");
    with_stand_in = std::move(refused);
    clean = std::move(posted);
  });
  REQUIRE_FALSE(with_stand_in.has_value());
  CHECK(with_stand_in.error().kind == errand::sdk::Error::Kind::refused);
  REQUIRE(h.transport.posts.size() == 2);
  const auto& told = h.transport.posts[0].message;
  CHECK(told.files.empty());
  CHECK_THAT(told.text, StartsWith("<@u1> `env.txt` was not uploaded: it holds a secret"));
  CHECK(told.mention_user_ids == std::vector<std::string>{"u1"});
  REQUIRE(clean.has_value());
  REQUIRE(h.transport.posts[1].message.files.size() == 1);
  CHECK(h.transport.posts[1].message.files[0].bytes == "all good\n");
  CHECK(h.transport.posts[1].message.text == "the report");
}

TEST_CASE("an upload larger than the service accepts is refused with the sizes") {
  RendererHarness h({}, 2000, 1ms);
  h.transport.limits_value.max_upload_bytes = 1024;
  auto renderer = ThreadRenderer::create(
      h.strand,
      errand::chat::RendererDeps{h.transport, h.secrets, h.clock,
                                 std::make_shared<spdlog::logger>("r"), nullptr},
      "thread-1", {});
  errand::sdk::Result<void> result;
  h.run([&](ThreadRenderer&) -> boost::asio::awaitable<void> {
    errand::sdk::OutFile big{"big.bin", "", std::string(2048, 'z')};
    auto refused = co_await renderer->upload(std::move(big), "u2");
    result = std::move(refused);
  });
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().kind == errand::sdk::Error::Kind::limit);
  CHECK_THAT(result.error().message, ContainsSubstring("2.0 KiB, more than the 1.0 KiB"));
}

TEST_CASE(
    "a turn is marked on the prompt while it runs and when it ends, and the asker is pinged") {
  RendererHarness h({}, 2000, 1ms);
  const errand::sdk::MessageRef prompt{"thread-1", "prompt-7"};
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.begin_turn({prompt, "u1", true});
    r.text("working on it ");
    r.end_turn({errand::chat::TurnEnding::done, ""});
    r.begin_turn({prompt, "u2", false});
    r.end_turn({errand::chat::TurnEnding::failed, "the agent exited with status 1"});
    r.begin_turn({prompt, "u3", false});
    r.end_turn({errand::chat::TurnEnding::stopped, ""});
    co_return;
  });
  const auto& reactions = h.transport.reactions;
  REQUIRE(reactions.size() == 10);
  CHECK((reactions[0].reaction == Reaction::queued && !reactions[0].add));
  CHECK((reactions[1].reaction == Reaction::working && reactions[1].add));
  CHECK((reactions[2].reaction == Reaction::working && !reactions[2].add));
  CHECK((reactions[3].reaction == Reaction::done && reactions[3].add));
  CHECK((reactions[6].reaction == Reaction::failed && reactions[6].add));
  CHECK((reactions[9].reaction == Reaction::stopped && reactions[9].add));
  for (const auto& r : reactions) CHECK(r.message_id == "prompt-7");

  const auto messages = h.transport.thread_text();
  REQUIRE(messages.size() == 4);
  CHECK(messages[0] == "working on it ");
  CHECK_THAT(messages[1], StartsWith("<@u1> done in "));
  CHECK(h.transport.posts[1].message.mention_user_ids == std::vector<std::string>{"u1"});
  CHECK_THAT(messages[2], StartsWith("<@u2> the turn failed after "));
  CHECK_THAT(messages[2], ContainsSubstring(": the agent exited with status 1"));
  CHECK_THAT(messages[3], StartsWith("<@u3> stopped after "));
}

TEST_CASE("a slow reaction does not hold back the agent's text, and reactions keep their order") {
  RendererHarness h({}, 2000, 1ms);
  h.transport.reaction_delay = 300ms;
  const errand::sdk::MessageRef prompt{"thread-1", "prompt-8"};
  std::size_t posts_before_first_reaction = 0;
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.begin_turn({prompt, "u1", false});
    r.text("first words");
    co_await h.pause(100ms);
    posts_before_first_reaction = h.transport.reactions.empty() ? h.transport.posts.size() : 0;
    r.end_turn({errand::chat::TurnEnding::done, ""});
  });
  CHECK(posts_before_first_reaction == 1);
  CHECK(h.transport.thread_text().front() == "first words");
  // drain() waited for the reaction lane too: all three are there, in the order they were made.
  const auto& reactions = h.transport.reactions;
  REQUIRE(reactions.size() == 3);
  CHECK((reactions[0].reaction == Reaction::working && reactions[0].add));
  CHECK((reactions[1].reaction == Reaction::working && !reactions[1].add));
  CHECK((reactions[2].reaction == Reaction::done && reactions[2].add));
}

TEST_CASE("a prompt that gets no turn is answered with a reaction and a sentence") {
  RendererHarness h({}, 2000, 1ms);
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.answer_prompt({{"thread-1", "p1"}, Reaction::expired, "this prompt waited too long", "u5"});
    co_return;
  });
  REQUIRE(h.transport.reactions.size() == 1);
  CHECK(h.transport.reactions[0].reaction == Reaction::expired);
  CHECK(h.transport.thread_text() == std::vector<std::string>{"<@u5> this prompt waited too long"});
}
