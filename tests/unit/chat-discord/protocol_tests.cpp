#include <boost/beast/http/verb.hpp>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <errand/sdk/config_problems.hpp>
#include <set>

#include "plugins/chat-discord/delivered_ids.hpp"
#include "plugins/chat-discord/event_translate.hpp"
#include "plugins/chat-discord/gateway_protocol.hpp"
#include "plugins/chat-discord/multipart.hpp"
#include "plugins/chat-discord/rate_limiter.hpp"
#include "plugins/chat-discord/reactions.hpp"
#include "plugins/chat-discord/settings.hpp"
#include "plugins/chat-discord/sliding_window.hpp"
#include "tests/support/result_printing.hpp"

using namespace errand::discord;
namespace json = boost::json;
using verb = boost::beast::http::verb;

TEST_CASE("close codes: which resume, which identify, which halt with a reason") {
  CHECK(action_for_close(4000, "").kind == CloseAction::Kind::resume);
  CHECK(action_for_close(1006, "").kind == CloseAction::Kind::resume);
  CHECK(action_for_close(4008, "").kind == CloseAction::Kind::resume);
  CHECK(action_for_close(4007, "").kind == CloseAction::Kind::identify);
  CHECK(action_for_close(4009, "").kind == CloseAction::Kind::identify);
  for (const std::uint16_t code : {4004, 4010, 4011, 4012, 4013, 4014})
    CHECK(action_for_close(code, "").kind == CloseAction::Kind::halt);
  const auto invalid_token = action_for_close(4004, "Authentication failed.");
  CHECK(invalid_token.reason.find("chat.token") != std::string::npos);
  const auto intents = action_for_close(4014, "");
  CHECK(intents.reason.find("Message Content") != std::string::npos);
  CHECK(intents.reason.find("developer portal") != std::string::npos);
}

TEST_CASE("identify asks for guilds, messages, reactions and message content") {
  const auto identify = identify_payload("secret-token", kErrandIntents);
  CHECK(identify.at("op").as_int64() == 2);
  const auto& d = identify.at("d").as_object();
  CHECK(d.at("intents").as_int64() == (1 | (1 << 9) | (1 << 10) | (1 << 15)));
  CHECK(d.at("properties").as_object().at("os").as_string() == "linux");
  CHECK(resume_payload("t", "s", 42).at("d").at("seq").as_int64() == 42);
  CHECK(heartbeat_payload(std::nullopt).at("d").is_null());
}

TEST_CASE("the gateway query keeps the URL's own parameters and always says v=10, json") {
  CHECK(gateway_query("") == "v=10&encoding=json");
  CHECK(gateway_query("region=us%2Deast") == "region=us%2Deast&v=10&encoding=json");
  CHECK(gateway_query("v=9&encoding=etf&compress=zlib-stream") ==
        "compress=zlib-stream&v=10&encoding=json");
  CHECK(gateway_query("flag&&v=6") == "flag&v=10&encoding=json");
}

TEST_CASE("routes are keyed by template and major parameter") {
  const auto post = route_key_for(verb::post, "/channels/123/messages");
  CHECK(post.route == "POST /channels/:channel/messages");
  CHECK(post.major == "123");
  const auto react = route_key_for(verb::put, "/channels/9/messages/77/reactions/%E2%9C%85/@me");
  CHECK(react.route == "PUT /channels/:channel/messages/:id/reactions/:emoji/@me");
  CHECK(react.major == "9");
  const auto hook = route_key_for(verb::patch, "/webhooks/1/tok/messages/@original");
  CHECK(hook.route == "PATCH /webhooks/:webhook/:token/messages/@original");
  CHECK(hook.major == "1:tok");
  CHECK(hook.route.find("tok/") == std::string::npos);
  const auto callback = route_key_for(verb::post, "/interactions/5/secret/callback");
  CHECK(callback.global_exempt);
  CHECK(callback.route.find("secret") == std::string::npos);
  CHECK_FALSE(post.global_exempt);
}

TEST_CASE("a sliding window allows count events per window") {
  SlidingWindow window(2, std::chrono::seconds(1));
  const auto t0 = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  CHECK(window.next_allowed(t0) == t0);
  window.record(t0);
  window.record(t0 + std::chrono::milliseconds(100));
  CHECK(window.next_allowed(t0 + std::chrono::milliseconds(200)) == t0 + std::chrono::seconds(1));
  CHECK(window.next_allowed(t0 + std::chrono::seconds(1)) == t0 + std::chrono::seconds(1));
  // Events under way hold places: with one reserved, the first recorded one must leave first.
  SlidingWindow busy(2, std::chrono::seconds(1));
  busy.record(t0);
  CHECK(busy.next_allowed(t0, 1) == t0 + std::chrono::seconds(1));
  CHECK(busy.next_allowed(t0, 2) == std::chrono::steady_clock::time_point::max());
  CHECK(busy.next_allowed(t0, 0) == t0);
}

TEST_CASE("reaction glyphs are distinct single emoji and URL-encoded for the route") {
  using errand::sdk::Reaction;
  std::set<std::string> seen;
  for (auto r : {Reaction::queued, Reaction::working, Reaction::done, Reaction::failed,
                 Reaction::stopped, Reaction::expired, Reaction::aside, Reaction::refused})
    seen.insert(std::string(reaction_glyph(r)));
  CHECK(seen.size() == 8);
  CHECK(percent_encode(reaction_glyph(Reaction::done)) == "%E2%9C%85");
  CHECK(percent_encode("a b/c") == "a%20b%2Fc");
}

TEST_CASE("configuration: URLs must be secure or loopback") {
  auto problems_for = [](json::object chat) {
    errand::sdk::ConfigProblems problems;
    validate_discord_config(json::object{{"chat", std::move(chat)}}, problems);
    return problems.all();
  };
  CHECK(problems_for({{"apiBase", "https://discord.com/api/v10"}}).empty());
  CHECK(problems_for({{"apiBase", "http://127.0.0.1:8080/api/v10"}}).empty());
  CHECK(problems_for({{"gatewayUrl", "ws://[::1]:9000"}}).empty());
  const auto plain = problems_for({{"apiBase", "http://discord.example/api"}});
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].path == "chat.apiBase");
  CHECK(plain[0].message.find("loopback") != std::string::npos);
  CHECK(problems_for({{"gatewayUrl", "http://127.0.0.1:1"}}).size() == 1);
  CHECK(problems_for({{"gatewayUrl", "ws://10.0.0.1:1"}}).size() == 1);
  CHECK(problems_for({{"guildId", "not-a-number"}}).size() == 1);
  CHECK(problems_for({{"channelId", "12x"}}).size() == 1);
  const auto schema = json::parse(kConfigSchema);
  CHECK(schema.at("chat").at("properties").at("apiBase").at("default").as_string() ==
        kDefaultApiBase);
}

TEST_CASE("settings read the token and channel and refuse a short token") {
  auto ok =
      read_discord_settings(json::object{{"chat", {{"token", "0123456789"}, {"channelId", "42"}}}});
  REQUIRE(ok);
  CHECK(ok->api_base == kDefaultApiBase);
  CHECK(ok->gateway_url.empty());
  CHECK_FALSE(
      read_discord_settings(json::object{{"chat", {{"token", "short"}, {"channelId", "42"}}}}));
}

TEST_CASE("multipart bodies carry payload_json and files[n]") {
  std::vector<errand::sdk::OutFile> files{{"a.txt", "text/plain", "alpha"},
                                          {"b\"ad.bin", "", std::string("\0\1", 2)}};
  const auto body = build_multipart(json::object{{"content", "hi"}}, files);
  const auto boundary = body.content_type.substr(body.content_type.find('=') + 1);
  CHECK(body.body.find("--" + boundary + "--") != std::string::npos);
  CHECK(body.body.find("name=\"payload_json\"") != std::string::npos);
  CHECK(body.body.find("\"attachments\":[{\"id\":0,\"filename\":\"a.txt\"}") != std::string::npos);
  CHECK(body.body.find("name=\"files[1]\"; filename=\"b_ad.bin\"") != std::string::npos);
}

TEST_CASE("messages: mentions of the bot, attachments and the author's name") {
  const auto d =
      json::parse(R"({"id":"175928847299117063","channel_id":"2","content":"hey <@!99> look",
    "author":{"id":"5","username":"alice","global_name":"Alice"},"member":{"nick":"Al"},
    "attachments":[{"id":"8","filename":"x.log","url":"https://cdn/x.log","size":12}]})")
          .as_object();
  const auto m = parse_message(d, "99");
  REQUIRE(m);
  CHECK(m->mentions_bot);
  CHECK(m->author.display_name == "Al");
  REQUIRE(m->attachments.size() == 1);
  CHECK(m->attachments[0].size == 12);
  // 175928847299117063 is Discord's documented example id, minted 2016-04-30 11:18:25.796 UTC.
  CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(m->sent_at.time_since_epoch())
            .count() == 1462015105796);
  CHECK_FALSE(parse_message(d, "98")->mentions_bot);
}

TEST_CASE("reactions: who reacted, with which glyph, custom emoji named with their id") {
  const auto d = json::parse(R"({"channel_id":"5","message_id":"6","user_id":"7",
    "member":{"nick":"Al","user":{"id":"7","username":"alice","global_name":"Alice"}},
    "emoji":{"name":"party","id":"42"}})")
                     .as_object();
  const auto added = parse_reaction(d, true);
  CHECK(added.ref.channel_id == "5");
  CHECK(added.ref.message_id == "6");
  CHECK(added.user.id == "7");
  CHECK(added.user.display_name == "Al");
  CHECK(added.glyph == "party:42");
  CHECK(added.added);
  const auto removed = parse_reaction(
      json::parse(R"({"channel_id":"5","message_id":"6","user_id":"8","emoji":{"name":"🛑"}})")
          .as_object(),
      false);
  CHECK(removed.user.id == "8");
  CHECK(removed.glyph == "🛑");
  CHECK_FALSE(removed.added);
}

TEST_CASE(
    "a guild's channels and threads, each with where it sits; entries without an id skipped") {
  const auto d = json::parse(R"({"id":"1","channels":[{"id":"10","parent_id":"2"},{"name":"x"},
    "not an object"],"threads":[{"id":"11","parent_id":"10"}]})")
                     .as_object();
  const auto places = guild_channels(d);
  REQUIRE(places.size() == 2);
  CHECK(places[0].id == "10");
  CHECK(places[0].parent_id == "2");
  CHECK_FALSE(places[0].listed_as_thread);
  CHECK(places[1].id == "11");
  CHECK(places[1].parent_id == "10");
  CHECK(places[1].listed_as_thread);
}

TEST_CASE("the delivered set forgets the oldest ids past its capacity") {
  DeliveredIds ids(3);
  CHECK(ids.insert("a"));
  CHECK_FALSE(ids.insert("a"));
  CHECK(ids.insert("b"));
  CHECK(ids.insert("c"));
  CHECK(ids.insert("d"));
  CHECK(ids.size() == 3);
  CHECK(ids.insert("a"));  // forgotten, so new again
}
