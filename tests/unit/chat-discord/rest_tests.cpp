#include <catch2/catch_test_macros.hpp>

#include "plugins/chat-discord/reactions.hpp"
#include "plugins/chat-discord/text_split.hpp"
#include "test_support.hpp"

using namespace errand::discord;
using namespace errand::discord::testing;
using errand::sdk::OutMessage;
namespace fd = errand::fake_discord;

namespace {

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<fd::RecordedRequest> message_posts(const fd::FakeDiscord& fake) {
  std::vector<fd::RecordedRequest> out;
  for (auto& r : requests_to(fake, "POST", "/messages"))
    if (r.path.size() >= 9 && r.path.substr(r.path.size() - 9) == "/messages") out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("posts carry a nonce with enforce_nonce and mention nobody unless asked") {
  Harness h;
  const auto& channel = h.fake.options().channel_id;
  auto plain = h.run(h.transport->post(channel, {.text = "hello <@123> @everyone"}));
  REQUIRE(plain);
  REQUIRE(plain->size() == 1);
  CHECK(h.fake.message(plain->at(0).message_id)->content == "hello <@123> @everyone");
  auto pinged =
      h.run(h.transport->post(channel, {.text = "done <@42>", .mention_user_ids = {"42"}}));
  REQUIRE(pinged);
  const auto posts = message_posts(h.fake);
  REQUIRE(posts.size() == 2);
  const auto& first = posts[0].json.as_object();
  CHECK(first.at("enforce_nonce").as_bool());
  CHECK(first.at("nonce").as_string().size() <= 25);
  CHECK(first.at("allowed_mentions").as_object().at("parse").as_array().empty());
  CHECK_FALSE(first.at("allowed_mentions").as_object().contains("users"));
  const auto& second = posts[1].json.as_object();
  CHECK(second.at("nonce") != first.at("nonce"));
  CHECK(second.at("allowed_mentions").at("users").as_array().at(0).as_string() == "42");
  CHECK(posts[0].header("authorization") == "Bot " + h.fake.options().token);
}

TEST_CASE("an account that is not a Discord user is never named in allowed_mentions") {
  Harness h;
  const auto& channel = h.fake.options().channel_id;
  auto posted = h.run(h.transport->post(
      channel, {.text = "done", .mention_user_ids = {"web-interface", "42", ""}}));
  REQUIRE(posted);
  const auto posts = message_posts(h.fake);
  REQUIRE(posts.size() == 1);
  const auto& users = posts[0].json.at("allowed_mentions").at("users").as_array();
  REQUIRE(users.size() == 1);
  CHECK(users.at(0).as_string() == "42");
}

TEST_CASE("posted text passes the host's scrubbing, and files holding a secret are refused") {
  Harness h;
  h.secrets.add("sk-very-secret-value");
  const auto& channel = h.fake.options().channel_id;
  auto r = h.run(h.transport->post(channel, {.text = "key is sk-very-secret-value"}));
  REQUIRE(r);
  CHECK(h.fake.message(r->at(0).message_id)->content == "key is [redacted]");
  auto refused = h.run(h.transport->post(
      channel, {.text = "log", .files = {{"env.txt", "text/plain", "X=sk-very-secret-value"}}}));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("env.txt") != std::string::npos);
}

TEST_CASE("long text is split into messages of at most 2000 characters") {
  Harness h;
  std::string text;
  for (int i = 0; i < 100; ++i)
    text += "output line " + std::to_string(i) + " " + repeat("=", 30) + "\n";
  auto refs = h.run(h.transport->post(h.fake.options().channel_id, {.text = text}));
  REQUIRE(refs);
  REQUIRE(refs->size() == 3);
  std::string joined;
  for (const auto& ref : *refs) {
    const auto m = h.fake.message(ref.message_id);
    REQUIRE(m);
    CHECK(count_code_points(m->content) <= 2000);
    joined += m->content + "\n";
  }
  CHECK(joined == text);
  CHECK(h.fake.rate_limited_responses() == 0);
}

TEST_CASE("text needing more than three messages goes as a file when asked") {
  Harness h;
  const auto text = repeat("0123456789\n", 800);  // 8800 characters: five messages
  auto refs = h.run(
      h.transport->post(h.fake.options().channel_id, {.text = text, .long_text_as_file = true}));
  REQUIRE(refs);
  REQUIRE(refs->size() == 1);
  const auto m = h.fake.message(refs->at(0).message_id);
  REQUIRE(m);
  REQUIRE(m->files.size() == 1);
  CHECK(m->files[0].filename == "message.txt");
  CHECK(m->files[0].bytes == text);
  CHECK(m->content.find("800 lines") != std::string::npos);
}

TEST_CASE("files are uploaded as multipart with payload_json and files[n]") {
  Harness h;
  const std::string binary("\x00\x01\x02\xff", 4);
  auto refs = h.run(h.transport->post(
      h.fake.options().channel_id, {.text = "the diff",
                                    .files = {{"change.diff", "text/x-diff", "+added\n"},
                                              {"blob.bin", "application/octet-stream", binary}}}));
  REQUIRE(refs);
  const auto posts = message_posts(h.fake);
  REQUIRE(posts.size() == 1);
  CHECK(posts[0].header("content-type").rfind("multipart/form-data; boundary=", 0) == 0);
  CHECK(posts[0].json.at("content").as_string() == "the diff");
  CHECK(posts[0].json.at("attachments").as_array().size() == 2);
  REQUIRE(posts[0].files.size() == 2);
  CHECK(posts[0].files[0].field == "files[0]");
  CHECK(posts[0].files[1].filename == "blob.bin");
  CHECK(posts[0].files[1].bytes == binary);
  auto too_big =
      h.run(h.transport->post(h.fake.options().channel_id,
                              {.files = {{"huge.bin", "", std::string((8u << 20) + 1, 'x')}}}));
  REQUIRE_FALSE(too_big);
  CHECK(too_big.error().kind == errand::sdk::Error::Kind::limit);
}

TEST_CASE("threads are opened from a message with a name cut to 100 characters") {
  Harness h;
  REQUIRE(h.wait_ready());
  const auto message = h.fake.post_user_message({.content = "start"});
  auto thread = h.run(h.transport->open_thread({h.fake.options().channel_id, message},
                                               "fix the \nbuild " + repeat("\xC3\xA9", 150)));
  REQUIRE(thread);
  CHECK(thread->id == message);
  CHECK(thread->parent_channel_id == h.fake.options().channel_id);
  const auto created = requests_to(h.fake, "POST", "/threads");
  REQUIRE(created.size() == 1);
  const auto name = std::string(created[0].json.at("name").as_string());
  CHECK(count_code_points(name) == 100);
  CHECK(name.find('\n') == std::string::npos);
  CHECK(created[0].json.at("auto_archive_duration").as_int64() == 10080);
  // A message in the new thread is now recognised as the session's.
  h.fake.post_user_message({.thread_id = thread->id, .content = "prompt"});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 2; }));
  CHECK(h.events.read([](auto& e) { return e.messages[1].thread_id; }) == thread->id);
  auto archived = h.run(h.transport->close_thread(thread->id));
  REQUIRE(archived);
  CHECK(requests_to(h.fake, "PATCH", "/channels/" + thread->id).size() == 1);
  // Discord's echo of errand's own archive is not a person closing the thread: a reply that
  // resumed it meanwhile would have its session stopped. Someone else's archive is reported.
  std::this_thread::sleep_for(300ms);
  CHECK(h.events.read([](auto& e) { return e.closed.size(); }) == 0);
  h.fake.post_user_message({.thread_id = thread->id, .content = "back again"});
  h.fake.archive_thread(thread->id);
  REQUIRE(h.events.wait([](auto& e) { return e.closed.size() == 1; }));
  CHECK(h.events.read([](auto& e) { return e.closed[0].thread_id; }) == thread->id);
}

TEST_CASE("edit, delete and reactions use their routes") {
  Harness h;
  const auto& channel = h.fake.options().channel_id;
  auto refs = h.run(h.transport->post(channel, {.text = "working..."}));
  REQUIRE(refs);
  const auto ref = refs->at(0);
  REQUIRE(h.run(h.transport->edit(ref, "done")));
  CHECK(h.fake.message(ref.message_id)->content == "done");
  auto too_long = h.run(h.transport->edit(ref, repeat("x", 2001)));
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().kind == errand::sdk::Error::Kind::refused);

  REQUIRE(h.run(h.transport->react(ref, errand::sdk::Reaction::working, true)));
  REQUIRE(h.run(h.transport->react(ref, errand::sdk::Reaction::done, true)));
  REQUIRE(h.run(h.transport->react(ref, errand::sdk::Reaction::working, false)));
  const auto reactions = h.fake.message(ref.message_id)->reactions;
  CHECK(reactions ==
        std::vector<std::string>{std::string(reaction_glyph(errand::sdk::Reaction::done))});
  const auto puts = requests_to(h.fake, "PUT", "/reactions/");
  REQUIRE(puts.size() == 2);
  CHECK(puts[1].path.find("/reactions/%E2%9C%85/@me") != std::string::npos);

  // Adding and removing share Discord's reaction bucket (1 per 250 ms here). The first
  // removal cannot know that yet and may meet one 429; once the answer named the bucket, the
  // two routes are paced together and meet none.
  CHECK(h.fake.rate_limited_responses() <= 1);
  const auto learned = h.fake.rate_limited_responses();
  for (int i = 0; i < 3; ++i) {
    REQUIRE(h.run(h.transport->react(ref, errand::sdk::Reaction::queued, true)));
    REQUIRE(h.run(h.transport->react(ref, errand::sdk::Reaction::queued, false)));
  }
  CHECK(h.fake.rate_limited_responses() == learned);

  REQUIRE(h.run(h.transport->remove(ref)));
  CHECK(h.fake.message(ref.message_id)->deleted);
  auto gone = h.run(h.transport->remove(ref));
  REQUIRE_FALSE(gone);
  CHECK(gone.error().kind == errand::sdk::Error::Kind::not_found);
}

TEST_CASE("a per-bucket 429 with a fractional retry_after is waited out") {
  Harness h;
  const auto& channel = h.fake.options().channel_id;
  h.fake.inject_rate_limit({"POST", "/channels/" + channel + "/messages", 0.35, false, 1});
  const auto before = std::chrono::steady_clock::now();
  auto refs = h.run(h.transport->post(channel, {.text = "after the wait"}));
  const auto took = std::chrono::steady_clock::now() - before;
  REQUIRE(refs);
  const auto posts = message_posts(h.fake);
  REQUIRE(posts.size() == 2);
  CHECK(posts[0].status == 429);
  CHECK(posts[1].status == 200);
  CHECK(posts[1].at - posts[0].at >= 350ms);
  CHECK(took < 2s);
  CHECK(h.core().rate_stats().bucket_429 == 1);
  // The same nonce went twice, so a 429 that had in fact posted could not double-post.
  CHECK(posts[0].json.at("nonce") == posts[1].json.at("nonce"));
}

TEST_CASE("a global 429 pauses every route for its retry_after") {
  Harness h;
  const auto& channel = h.fake.options().channel_id;
  h.fake.inject_rate_limit({"GET", "/gateway", 0.0, false, 0});  // no-op entry, keeps order
  h.fake.inject_rate_limit({"PATCH", "/channels/", 0.3, true, 1});
  auto refs = h.run(h.transport->post(channel, {.text = "first"}));
  REQUIRE(refs);
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(h.run(h.transport->edit(refs->at(0), "edited")));
  CHECK(std::chrono::steady_clock::now() - start >= 300ms);
  const auto patches = requests_to(h.fake, "PATCH", "/messages/");
  REQUIRE(patches.size() == 2);
  CHECK(patches[0].status == 429);
  CHECK(patches[1].at - patches[0].at >= 300ms);
  CHECK(h.core().rate_stats().global_429 == 1);
}

TEST_CASE("the per-channel limit of 5 messages per window is kept without a 429") {
  auto options = fast_fake();
  options.channel_window = 1000ms;
  Harness h(options);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 12; ++i)
    REQUIRE(
        h.run(h.transport->post(h.fake.options().channel_id, {.text = "m" + std::to_string(i)})));
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(h.fake.rate_limited_responses() == 0);
  CHECK(message_posts(h.fake).size() == 12);
  CHECK(took >= 2000ms);  // 12 messages need three windows
}

TEST_CASE("the global limiter keeps the bot under its requests per second") {
  auto options = fast_fake();
  options.global_per_second = 10;
  auto tuning = fast_tuning();
  tuning.limits.global_per_second = 10;
  Harness h(options, tuning, false);
  const auto& channel = h.fake.options().channel_id;
  // Edits of different messages are in different buckets; only the global limit binds.
  std::vector<errand::sdk::MessageRef> refs;
  for (int i = 0; i < 5; ++i) {
    auto r = h.run(h.transport->post(channel, {.text = "m"}));
    REQUIRE(r);
    refs.push_back(r->at(0));
  }
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 5; ++round)
    for (const auto& ref : refs)
      REQUIRE(h.run(h.transport->edit(ref, "e" + std::to_string(round))));
  // 30 requests at 10 a second: the last 20 wait for at least two seconds' worth of windows.
  CHECK(std::chrono::steady_clock::now() - start >= 1500ms);
  CHECK(h.fake.rate_limited_responses() == 0);
}

TEST_CASE("one 401 halts REST: later calls fail at once and the transport reports halted") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.revoke_token();
  const auto& channel = h.fake.options().channel_id;
  auto first = h.run(h.transport->post(channel, {.text = "one"}));
  REQUIRE_FALSE(first);
  CHECK(first.error().message.find("401") != std::string::npos);
  REQUIRE(h.events.wait(
      [](auto& e) { return e.count_state(errand::sdk::ConnectionState::halted) > 0; }));
  const auto count = h.fake.requests().size();
  for (int i = 0; i < 5; ++i) {
    auto again = h.run(h.transport->post(channel, {.text = "more"}));
    REQUIRE_FALSE(again);
    CHECK(again.error().kind == errand::sdk::Error::Kind::refused);
  }
  CHECK(h.fake.requests().size() == count);
}

TEST_CASE("slash commands are registered in bulk for the served channel's guild") {
  Harness h;  // no chat.guildId: it is read from the channel
  std::vector<errand::sdk::CommandSpec> specs{
      {"help", "What can be typed", {}},
      {"model", "Switch model", {{"name", "the model", false}, {"thread", "where", true}}}};
  REQUIRE(h.run(h.transport->register_commands(specs)));
  const auto puts = requests_to(h.fake, "PUT", "/commands");
  REQUIRE(puts.size() == 1);
  CHECK(puts[0].path == "/api/v10/applications/" + h.fake.options().application_id + "/guilds/" +
                            h.fake.options().guild_id + "/commands");
  const auto commands = h.fake.registered_commands().as_array();
  REQUIRE(commands.size() == 2);
  const auto& options = commands[1].at("options").as_array();
  CHECK(options[0].at("name").as_string() == "thread");  // required options first
  CHECK(options[0].at("type").as_int64() == 3);
  auto bad = h.run(h.transport->register_commands({{"Help", "x", {}}}));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("lower case") != std::string::npos);
}

TEST_CASE("an interaction is deferred within 3 s and its original message edited") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.send_interaction("status", {});
  REQUIRE(h.events.wait([](auto& e) { return e.commands.size() == 1; }));
  const auto call = h.events.read([](auto& e) { return e.commands[0]; });
  REQUIRE(h.run(h.transport->acknowledge(call, errand::sdk::Visibility::only_caller)));
  REQUIRE(h.run(h.transport->answer(call, {.text = "idle; " + repeat("q", 2500)})));
  const auto records = h.fake.interactions();
  REQUIRE(records.size() == 1);
  CHECK(records[0].acknowledged);
  CHECK(records[0].callback_type == 5);
  CHECK(records[0].ephemeral);
  REQUIRE(records[0].acknowledged_after);
  CHECK(*records[0].acknowledged_after < 3000ms);
  CHECK(records[0].original_content.rfind("idle; ", 0) == 0);
  REQUIRE(records[0].followups.size() == 1);
  const auto callback = requests_to(h.fake, "POST", "/callback");
  REQUIRE(callback.size() == 1);
  CHECK(callback[0].header("authorization").empty());  // the interaction token is the credential
  const auto followup = requests_to(h.fake, "POST", "/webhooks/");
  REQUIRE(followup.size() == 1);
  CHECK(followup[0].json.at("flags").as_int64() == 64);
}

TEST_CASE("attachments are fetched up to a byte bound and refused beyond it") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.post_user_message(
      {.content = "see file", .attachments = {{"", "data.txt", "text/plain", repeat("d", 5000)}}});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 1; }));
  auto attachment = h.events.read([](auto& e) { return e.messages[0].attachments.at(0); });
  auto bytes = h.run(h.transport->fetch_attachment(attachment, 10000));
  REQUIRE(bytes);
  CHECK(*bytes == repeat("d", 5000));
  auto declared_too_big = h.run(h.transport->fetch_attachment(attachment, 4000));
  REQUIRE_FALSE(declared_too_big);
  CHECK(declared_too_big.error().kind == errand::sdk::Error::Kind::limit);
  // A size that lies is caught by the body bound while reading.
  attachment.size = 10;
  auto body_too_big = h.run(h.transport->fetch_attachment(attachment, 4000));
  REQUIRE_FALSE(body_too_big);
  CHECK(body_too_big.error().kind == errand::sdk::Error::Kind::limit);
  auto remote = attachment;
  remote.url = "http://198.51.100.7/file";
  auto refused = h.run(h.transport->fetch_attachment(remote, 4000));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == errand::sdk::Error::Kind::refused);
}
