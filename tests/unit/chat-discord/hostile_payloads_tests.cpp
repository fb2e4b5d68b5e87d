// Payloads outside the shapes Discord documents, each first found by a fuzz target in
// tests/fuzz/chat-discord. A server (or a proxy in front of it) that sends them must neither
// crash the transport nor make it drop the event or halt.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "plugins/chat-discord/event_translate.hpp"
#include "plugins/chat-discord/gateway_frames.hpp"
#include "plugins/chat-discord/rate_limiter.hpp"
#include "plugins/chat-discord/rest_refusal.hpp"

using namespace errand::discord;
namespace json = boost::json;

namespace {

json::object object_of(std::string_view text) {
  return json::parse(text).as_object();
}

}  // namespace

TEST_CASE("an attachment size that is no whole byte count leaves the size unknown") {
  for (const auto* size : {"18.34", "-1", "1e30"}) {
    CAPTURE(size);
    const auto d =
        object_of(std::string(R"({"id":"1312000000000000001","channel_id":"112233445566778899",)") +
                  R"("author":{"id":"223344556677889900","username":"ada"},"content":"look",)" +
                  R"("attachments":[{"id":"1312000000000000002","filename":"log.txt","size":)" +
                  size + "}]}");
    const auto message = parse_message(d, "1100000000000000001");
    REQUIRE(message);
    REQUIRE(message->attachments.size() == 1);
    CHECK(message->attachments[0].size == 0);
    CHECK(message->attachments[0].filename == "log.txt");
  }
}

TEST_CASE("a READY whose resume_gateway_url is no ws(s) URL resumes on the gateway URL") {
  const auto ready = read_ready(object_of(
      R"({"session_id":"9f1c","resume_gateway_url":"wss://gateway-us-east1-b.o`tions.gg",)"
      R"("user":{"id":"1100000000000000001"}})"));
  CHECK(ready.session_id == "9f1c");
  CHECK(ready.user_id == "1100000000000000001");
  CHECK_FALSE(ready.resume_url);
  CHECK(ready.resume_url_refusal.find("gateway-us-east1-b.o`tions.gg") != std::string::npos);
  for (const auto* url : {"https://gateway.discord.gg", "gateway.discord.gg", "wss://",
                          "wss://gateway-us-east:5-b.discord.gg"}) {
    const auto dropped =
        read_ready(object_of(std::string(R"({"resume_gateway_url":")") + url + "\"}"));
    CHECK_FALSE(dropped.resume_url);
    CHECK(dropped.resume_url_refusal.find(url) != std::string::npos);
  }
  const auto kept =
      read_ready(object_of(R"({"resume_gateway_url":"wss://gateway-us-east1-b.discord.gg"})"));
  CHECK(kept.resume_url == "wss://gateway-us-east1-b.discord.gg");
  CHECK(kept.resume_url_refusal.empty());
  CHECK(
      read_ready(object_of(R"({"resume_gateway_url":"ws://127.0.0.1:41231/resume"})")).resume_url ==
      "ws://127.0.0.1:41231/resume");
}

TEST_CASE("an interaction type that is no int is not a command, and does not throw") {
  for (const auto* type : {"3333333333333333333333333333333333333333333333333333333330", "2.5"}) {
    CAPTURE(type);
    const auto d =
        object_of(std::string(R"({"type":)") + type +
                  R"(,"id":"1312000000000000009","token":"aW50","data":{"name":"model"}})");
    std::optional<errand::sdk::CommandCall> call;
    CHECK_NOTHROW(call = parse_command(d));
    CHECK_FALSE(call);
  }
  CHECK(parse_command(object_of(
      R"({"type":2.0,"id":"1312000000000000009","token":"aW50","data":{"name":"model"}})")));
}

TEST_CASE("Discord's error code that is no integer is left out of the refusal, not thrown") {
  HttpReply reply;
  reply.status = 400;
  reply.body =
      R"({"message": "Invalid Form Body", "code": 5.035, "errors": {"content": {"_errors": )"
      R"([{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]}}})";
  std::string said;
  CHECK_NOTHROW(said = describe_refusal(reply));
  CHECK(said == "HTTP 400 Invalid Form Body: content: Must be 2000 or fewer in length.");
  reply.body = R"({"message": "Unknown Channel", "code": 10003})";
  CHECK(describe_refusal(reply) == "HTTP 400 Unknown Channel (Discord code 10003)");
}

TEST_CASE("a heartbeat interval is kept between 1 ms and an hour") {
  using std::chrono::milliseconds;
  CHECK(heartbeat_interval_of(object_of("{}")) == milliseconds(41250));
  CHECK(heartbeat_interval_of(object_of(R"({"heartbeat_interval":41250})")) == milliseconds(41250));
  CHECK(heartbeat_interval_of(object_of(R"({"heartbeat_interval":412214748364849})")) ==
        milliseconds(3600 * 1000));
  CHECK(heartbeat_interval_of(object_of(R"({"heartbeat_interval":1e300})")) ==
        milliseconds(3600 * 1000));
  CHECK(heartbeat_interval_of(object_of(R"({"heartbeat_interval":-5})")) == milliseconds(1));
  // Boost.JSON reads 0e40000 as NaN, which no clamp bounds.
  CHECK(heartbeat_interval_of(object_of(R"({"heartbeat_interval":0e40000})")) == milliseconds(1));
}

TEST_CASE("/gateway/bot's concurrency and start-limit wait are bounded") {
  const auto bot = [](std::string_view limit) {
    return read_gateway_bot(
        json::parse(std::string(R"({"url":"wss://gateway.discord.gg","session_start_limit":)") +
                    std::string(limit) + "}"));
  };
  CHECK(bot(R"({"max_concurrency":16})").max_concurrency == 16u);
  CHECK(bot(R"({"max_concurrency":-1})").max_concurrency == 1u);
  CHECK(bot(R"({"max_concurrency":0})").max_concurrency == 1u);
  CHECK(bot(R"({"max_concurrency":1e30})").max_concurrency == 65536u);
  CHECK_FALSE(bot(R"({"remaining":999,"reset_after":14400000})").start_limit_wait);
  CHECK(bot(R"({"remaining":0,"reset_after":3600000})").start_limit_wait ==
        std::chrono::milliseconds(3600000));
  CHECK(bot(R"({"remaining":0,"reset_after":1e300})").start_limit_wait == std::chrono::hours(24));
  CHECK(bot(R"({"remaining":0,"reset_after":-7})").start_limit_wait ==
        std::chrono::milliseconds(0));
  CHECK(bot(R"({"remaining":0,"reset_after":0e40000})").start_limit_wait ==
        std::chrono::milliseconds(0));
  CHECK(bot(R"({"max_concurrency":0e40000})").max_concurrency == 1u);
}

namespace {

// Whether the limiter grants a request on the route within `within`. A request still waiting
// stays queued on io.
bool granted_within(boost::asio::io_context& io, RateLimiter& limiter, const RouteKey& key,
                    std::chrono::milliseconds within) {
  auto granted = std::make_shared<bool>(false);
  boost::asio::co_spawn(io, limiter.acquire(key), [granted](std::exception_ptr, auto permit) {
    *granted = permit.has_value();
  });
  io.restart();
  io.run_for(within);
  return *granted;
}

RateLimiter::Permit permit_for(const RouteKey& key) {
  return {"route " + key.route + " " + key.major, key, true};
}

}  // namespace

TEST_CASE("a rate-limit count beyond an int is taken as a large one, not a spent bucket") {
  boost::asio::io_context io;
  RateLimiter limiter(io.get_executor());
  const auto key = route_key_for(boost::beast::http::verb::post, "/channels/123/messages");
  HttpReply reply;
  reply.status = 200;
  reply.headers = {{"x-ratelimit-limit", "5"},
                   {"x-ratelimit-remaining", "184467440737095516151"},
                   {"x-ratelimit-reset-after", "60"}};
  CHECK_FALSE(limiter.complete(permit_for(key), reply));
  CHECK(granted_within(io, limiter, key, std::chrono::milliseconds(500)));
}

TEST_CASE("a 429 whose retry-after is beyond the clock still waits, for at most a day") {
  boost::asio::io_context io;
  RateLimiter limiter(io.get_executor());
  const auto key = route_key_for(boost::beast::http::verb::post, "/channels/123/messages");
  HttpReply reply;
  reply.status = 429;
  reply.headers = {{"retry-after", "9223372036854775807"}, {"x-ratelimit-scope", "global"}};
  CHECK(limiter.complete(permit_for(key), reply));
  CHECK_FALSE(granted_within(io, limiter, key, std::chrono::milliseconds(300)));
  // Closing ends the wait, so nothing is left on io when the limiter goes.
  limiter.close();
  io.restart();
  io.run_for(std::chrono::seconds(1));
  CHECK(io.stopped());
}
