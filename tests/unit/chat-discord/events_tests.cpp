#include <catch2/catch_test_macros.hpp>

#include "test_support.hpp"

using namespace errand::discord;
using namespace errand::discord::testing;
namespace fd = errand::fake_discord;

TEST_CASE("messages in the served channel and its threads reach the core, others do not") {
  Harness h;
  REQUIRE(h.wait_ready());
  const auto& served = h.fake.options().channel_id;
  const auto in_channel = h.fake.post_user_message({.content = "start a session"});
  const auto thread = h.fake.create_thread("session one");
  const auto in_thread = h.fake.post_user_message({.thread_id = thread, .content = "a prompt"});
  const auto elsewhere_thread = h.fake.create_thread("other", "999999999999999999");
  h.fake.post_user_message({.thread_id = elsewhere_thread, .content = "not ours"});
  h.fake.post_user_message({.channel_id = "888888888888888888", .content = "not ours either"});
  const auto last = h.fake.post_user_message({.content = "last"});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() >= 3; }));
  std::this_thread::sleep_for(200ms);
  const auto messages = h.events.read([](auto& e) { return e.messages; });
  REQUIRE(messages.size() == 3);
  CHECK(messages[0].ref.message_id == in_channel);
  CHECK(messages[0].thread_id.empty());
  CHECK(messages[0].ref.channel_id == served);
  CHECK(messages[0].text == "start a session");
  CHECK(messages[0].author.display_name == "alice");
  CHECK_FALSE(messages[0].author.is_bot);
  CHECK_FALSE(messages[0].replay);
  CHECK(messages[1].ref.message_id == in_thread);
  CHECK(messages[1].thread_id == thread);
  CHECK(messages[2].ref.message_id == last);
}

TEST_CASE("a channel the transport has not seen is looked up once over REST") {
  Harness h;
  REQUIRE(h.wait_ready());
  // A thread announced by THREAD_CREATE needs no lookup.
  const auto thread = h.fake.create_thread("late");
  h.fake.post_user_message({.thread_id = thread, .content = "one"});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 1; }));
  CHECK(requests_to(h.fake, "GET", "/channels/" + thread).empty());  // learned from THREAD_CREATE
  h.fake.post_user_message({.channel_id = "777777777777777777", .content = "unknown place"});
  REQUIRE(fd::FakeDiscord::wait_until(
      [&] { return requests_to(h.fake, "GET", "/channels/777777777777777777").size() == 1; }, 2s));
  h.fake.post_user_message({.channel_id = "777777777777777777", .content = "again"});
  std::this_thread::sleep_for(200ms);
  CHECK(requests_to(h.fake, "GET", "/channels/777777777777777777").size() == 1);
  CHECK(h.events.read([](auto& e) { return e.messages.size(); }) == 1);
}

TEST_CASE("the bot's own messages are not delivered, other bots' are, flagged") {
  Harness h;
  REQUIRE(h.wait_ready());
  auto posted = h.run(h.transport->post(h.fake.options().channel_id, {.text = "from errand"}));
  REQUIRE(posted);
  h.fake.post_user_message(
      {.author_id = "123", .username = "otherbot", .content = "beep", .author_is_bot = true});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 1; }));
  std::this_thread::sleep_for(150ms);
  const auto messages = h.events.read([](auto& e) { return e.messages; });
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].author.is_bot);
  CHECK(messages[0].text == "beep");
}

TEST_CASE("mentions of the bot and attachments are reported") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.post_user_message({.content = "no mention"});
  h.fake.post_user_message({.content = "please",
                            .mention_bot = true,
                            .attachments = {{"", "notes.txt", "text/plain", "remember this"}}});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 2; }));
  const auto messages = h.events.read([](auto& e) { return e.messages; });
  CHECK_FALSE(messages[0].mentions_bot);
  CHECK(messages[1].mentions_bot);
  REQUIRE(messages[1].attachments.size() == 1);
  CHECK(messages[1].attachments[0].filename == "notes.txt");
  CHECK(messages[1].attachments[0].size == 13);
  const auto now = std::chrono::system_clock::now();
  CHECK(messages[1].sent_at > now - 1min);
  CHECK(messages[1].sent_at <= now + 1s);
}

TEST_CASE("deletions, archived threads and deleted threads are reported") {
  Harness h;
  REQUIRE(h.wait_ready());
  const auto thread = h.fake.create_thread("session");
  const auto message = h.fake.post_user_message({.thread_id = thread, .content = "oops"});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 1; }));
  h.fake.delete_message(thread, message);
  h.fake.delete_message("555555555555555555", "1");  // elsewhere: ignored
  h.fake.archive_thread(thread);
  const auto other = h.fake.create_thread("second");
  h.fake.delete_thread(other);
  REQUIRE(h.events.wait([](auto& e) { return e.closed.size() == 2; }));
  std::this_thread::sleep_for(100ms);
  h.events.read([&](auto& e) {
    REQUIRE(e.deleted.size() == 1);
    CHECK(e.deleted[0].ref.message_id == message);
    CHECK(e.deleted[0].ref.channel_id == thread);
    CHECK(e.closed[0].thread_id == thread);
    CHECK_FALSE(e.closed[0].deleted);
    CHECK(e.closed[1].thread_id == other);
    CHECK(e.closed[1].deleted);
    return 0;
  });
}

TEST_CASE("slash commands reach the core; outside the served channel they are refused") {
  Harness h;
  REQUIRE(h.wait_ready());
  const auto call = h.fake.send_interaction("model", {{"name", "fast"}});
  REQUIRE(h.events.wait([](auto& e) { return e.commands.size() == 1; }));
  const auto received = h.events.read([](auto& e) { return e.commands[0]; });
  CHECK(received.id == call.id);
  CHECK(received.token == call.token);
  CHECK(received.name == "model");
  CHECK(received.options.at("name") == "fast");
  CHECK(received.channel_id == h.fake.options().channel_id);
  CHECK(received.user.id == "500000000000000005");

  const auto stray = h.fake.send_interaction("help", {}, "444444444444444444");
  REQUIRE(fd::FakeDiscord::wait_until(
      [&] {
        for (const auto& i : h.fake.interactions())
          if (i.id == stray.id && i.acknowledged) return true;
        return false;
      },
      3s));
  for (const auto& i : h.fake.interactions()) {
    if (i.id != stray.id) continue;
    CHECK(i.callback_type == 4);
    CHECK(i.ephemeral);
    CHECK(i.original_content.find(h.fake.options().channel_id) != std::string::npos);
  }
  CHECK(h.events.read([](auto& e) { return e.commands.size(); }) == 1);
}

TEST_CASE("reactions by people are reported, the bot's own are not") {
  Harness h;
  REQUIRE(h.wait_ready());
  const auto message = h.fake.post_user_message({.content = "react to me"});
  h.fake.add_user_reaction(h.fake.options().channel_id, message, h.fake.options().bot_user_id,
                           "\xE2\x9C\x85");
  h.fake.add_user_reaction(h.fake.options().channel_id, message, "500000000000000005",
                           "\xF0\x9F\x9B\x91");
  REQUIRE(h.events.wait([](auto& e) { return e.reactions.size() == 1; }));
  std::this_thread::sleep_for(100ms);
  const auto reactions = h.events.read([](auto& e) { return e.reactions; });
  REQUIRE(reactions.size() == 1);
  CHECK(reactions[0].glyph == "\xF0\x9F\x9B\x91");
  CHECK(reactions[0].ref.message_id == message);
  CHECK(reactions[0].added);
}

TEST_CASE("the transport takes its event sink once: a second start is refused") {
  Harness h;
  REQUIRE(h.wait_ready());
  RecordingEvents other;
  const auto again = h.transport->start(other);
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().kind == errand::sdk::Error::Kind::refused);
  CHECK(again.error().message.find("already started") != std::string::npos);
  // Messages still reach the first sink, and none the refused one.
  h.fake.post_user_message({.content = "after the second start"});
  REQUIRE(h.events.wait([](auto& e) { return !e.messages.empty(); }));
  CHECK(other.read([](auto& e) { return e.messages.size(); }) == 0);
}
