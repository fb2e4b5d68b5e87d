// The renderer is the door to the thread: every text given to it is scrubbed there, once.
// Each entry point gets a configured secret and a minted stand-in; none comes out, and the
// scrubber never sees a text that was already scrubbed.

#include "tests/unit/chat/render/renderer_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::chat::ThreadRenderer;
using errand::test::RendererHarness;
namespace chat = errand::chat;
namespace sdk = errand::sdk;

namespace {

const std::string kSecret(errand::test::kConfiguredSecret);
using errand::test::kStandIn;

chat::RenderSettings everything_shown() {
  chat::RenderSettings settings;
  settings.forward_tool_output = true;
  settings.post_diffs = true;
  return settings;
}

}  // namespace

TEST_CASE("no secret given to any of the renderer's entry points reaches the thread") {
  RendererHarness h(everything_shown(), 2000, std::chrono::milliseconds(1));
  const std::string both = kSecret + " and " + kStandIn;
  const sdk::MessageRef prompt{"thread-1", "prompt-1"};
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.begin_turn({prompt, "owner", false});
    r.text("the agent says " + both + " in its reply\n");
    r.tool_started({"t1", "curl -H 'key: " + kSecret + "'"});
    r.tool_finished({"t1", "", chat::ToolStatus::completed, 0, "printed " + kStandIn});
    r.tool_started({"t2", "make"});
    r.tool_finished({"t2", "make " + kSecret, chat::ToolStatus::failed, 2, "no output"});
    r.file_changed({"src/" + kSecret + ".txt", "old " + kStandIn, "new " + kSecret});
    r.notice("a notice with " + both, {"owner"});
    r.answer_prompt({prompt, sdk::Reaction::refused, "refused: " + both, "owner"});
    r.end_turn({chat::TurnEnding::failed, "the provider said " + both});
    sdk::OutFile file;
    file.filename = "report.txt";
    file.bytes = "plain bytes";
    auto uploaded = co_await r.upload(file, "owner", "caption " + both);
    CHECK(uploaded.has_value());
  });
  const auto sent = h.transport.everything_sent();
  CHECK_THAT(sent, ContainsSubstring("[redacted]"));
  CHECK_THAT(sent, ContainsSubstring("the agent says"));
  CHECK_THAT(sent, ContainsSubstring("the provider said"));
  CHECK_THAT(sent, ContainsSubstring("caption"));
  CHECK(sent.find(kSecret) == std::string::npos);
  CHECK(sent.find(kStandIn) == std::string::npos);
  CHECK(h.secrets.rescrubbed().empty());
}

TEST_CASE("the renderer's own refusal of an upload names the file scrubbed, and scrubs it once") {
  RendererHarness h(everything_shown(), 2000, std::chrono::milliseconds(1));
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    sdk::OutFile file;
    file.filename = "dump-" + kStandIn + ".txt";
    file.bytes = "the token is " + kSecret;
    auto uploaded = co_await r.upload(file, "owner");
    CHECK_FALSE(uploaded.has_value());
  });
  const auto sent = h.transport.everything_sent();
  CHECK_THAT(sent, ContainsSubstring("was not uploaded"));
  CHECK_THAT(sent, ContainsSubstring("dump-[redacted].txt"));
  CHECK(sent.find(kStandIn) == std::string::npos);
  CHECK(h.secrets.rescrubbed().empty());
}

TEST_CASE("text the caller has not scrubbed is shown scrubbed, which is why callers never scrub") {
  RendererHarness h(everything_shown(), 2000, std::chrono::milliseconds(1));
  h.run([&](ThreadRenderer& r) -> boost::asio::awaitable<void> {
    r.notice("raw " + kSecret);
    co_return;
  });
  REQUIRE(h.transport.posts.size() == 1);
  CHECK(h.transport.posts[0].message.text == "raw [redacted]");
  // The door asked about the raw text, exactly once.
  const auto asked = h.secrets.asked();
  CHECK(std::count(asked.begin(), asked.end(), "raw " + kSecret) == 1);
}
