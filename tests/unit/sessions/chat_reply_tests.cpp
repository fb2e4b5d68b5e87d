// Channel replies (a command's answer, a refusal outside a session's thread) pass one door,
// chat_reply: a secret in the text comes out scrubbed, typed or slash, and once.

#include "core/sessions/chat_reply.hpp"
#include "tests/support/scrub_witness.hpp"
#include "tests/unit/chat/render/recording_transport.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::sessions::ReplyTo;
namespace sdk = errand::sdk;

namespace {

const std::string kSecret = "reply-door-secret-value";
const std::string kReplyStandIn = "errand-session-" + std::string(64, 'd');

struct ReplyHarness {
  ReplyHarness() : secrets({kSecret}) { secrets.add(kReplyStandIn); }

  void run(std::function<boost::asio::awaitable<void>()> body) {
    boost::asio::co_spawn(io, body, boost::asio::detached);
    io.run();
  }

  static ReplyTo typed() {
    sdk::InboundMessage message;
    message.ref = {"channel-1", "message-1"};
    message.author.id = "asker";
    return ReplyTo::typed(message);
  }

  boost::asio::io_context io;
  errand::test::RecordingTransport transport;
  errand::test::ScrubWitness secrets;
};

}  // namespace

TEST_CASE("a typed reply with a secret is posted scrubbed, addressed to the asker") {
  ReplyHarness h;
  h.run([&]() -> boost::asio::awaitable<void> {
    co_await errand::sessions::send_reply(
        h.transport, h.secrets, ReplyHarness::typed(),
        "the key is " + kSecret + ", the stand-in " + kReplyStandIn);
  });
  REQUIRE(h.transport.posts.size() == 1);
  CHECK(h.transport.posts[0].channel_id == "channel-1");
  CHECK(h.transport.posts[0].message.text ==
        "<@asker> the key is [redacted], the stand-in [redacted]");
  CHECK(h.secrets.rescrubbed().empty());
}

TEST_CASE("a slash command's answer with a secret is scrubbed too") {
  ReplyHarness h;
  sdk::CommandCall call;
  call.channel_id = "channel-1";
  call.user.id = "asker";
  h.run([&]() -> boost::asio::awaitable<void> {
    co_await errand::sessions::send_reply(h.transport, h.secrets, ReplyTo::command(call),
                                          "status: " + kSecret);
  });
  REQUIRE(h.transport.answers.size() == 1);
  CHECK(h.transport.answers[0].second.text == "status: [redacted]");
}

TEST_CASE("a refusal on a prompt is scrubbed, and marks the prompt") {
  ReplyHarness h;
  h.run([&]() -> boost::asio::awaitable<void> {
    co_await errand::sessions::refuse_prompt(h.transport, h.secrets, ReplyHarness::typed(),
                                             sdk::Reaction::failed,
                                             "no session was started: " + kSecret);
  });
  REQUIRE(h.transport.reactions.size() == 1);
  CHECK(h.transport.reactions[0].reaction == sdk::Reaction::failed);
  REQUIRE(h.transport.posts.size() == 1);
  CHECK(h.transport.posts[0].message.text == "<@asker> no session was started: [redacted]");
}

TEST_CASE("a file reply naming a secret is refused, its name scrubbed once in the sentence") {
  ReplyHarness h;
  sdk::OutFile file;
  file.filename = "keys-" + kReplyStandIn + ".txt";
  file.bytes = "harmless";
  h.run([&]() -> boost::asio::awaitable<void> {
    co_await errand::sessions::send_file_reply(h.transport, h.secrets, ReplyHarness::typed(), file);
  });
  REQUIRE(h.transport.posts.size() == 1);
  const auto& posted = h.transport.posts[0].message;
  CHECK(posted.files.empty());
  CHECK_THAT(posted.text, ContainsSubstring("`keys-[redacted].txt` was not uploaded"));
  CHECK(posted.text.find(kReplyStandIn) == std::string::npos);
  CHECK(h.secrets.rescrubbed().empty());
}

TEST_CASE("a file holding the house rules is refused whole, and the rules are never scrubbed") {
  ReplyHarness h;
  const std::string rules = "Always run the tests before you push.\n";
  h.secrets.upload_guard().keep(rules);
  sdk::OutFile file;
  file.filename = "AGENTS.md";
  file.bytes = "# copied\n" + rules + "more\n";
  h.run([&]() -> boost::asio::awaitable<void> {
    co_await errand::sessions::send_file_reply(h.transport, h.secrets, ReplyHarness::typed(), file);
  });
  REQUIRE(h.transport.posts.size() == 1);
  const auto& posted = h.transport.posts[0].message;
  CHECK(posted.files.empty());
  CHECK_THAT(posted.text, ContainsSubstring("`AGENTS.md` was not uploaded"));
  // A text that merely quotes the rules is text, not an upload: it passes as written.
  CHECK(h.secrets.scrub("the rules say: " + rules) == "the rules say: " + rules);
}
