// libFuzzer target for an answer from Discord's REST API: its status, headers and body go
// through the rate limiter that learns from them, the reader of Discord's error bodies and the
// reader of GET /gateway/bot. The input is an answer as text: the status on the first line,
// "name: value" header lines, an empty line, then the body.

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "plugins/chat-discord/gateway_frames.hpp"
#include "plugins/chat-discord/rate_limiter.hpp"
#include "plugins/chat-discord/rest_refusal.hpp"

namespace {

namespace json = boost::json;
using namespace errand::discord;

void check(bool condition) {
  if (!condition) std::abort();
}

std::string_view next_line(std::string_view& text) {
  const auto end = text.find('\n');
  const auto line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

HttpReply reply_from(std::string_view text) {
  HttpReply reply;
  const auto status = next_line(text);
  for (const char c : status.substr(0, 3))
    if (c >= '0' && c <= '9') reply.status = reply.status * 10 + static_cast<unsigned>(c - '0');
  while (!text.empty()) {
    const auto line = next_line(text);
    if (line.empty()) break;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(line.substr(0, colon));
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto value = line.substr(colon + 1);
    while (value.starts_with(' ')) value.remove_prefix(1);
    reply.headers[name] = std::string(value);
  }
  reply.body = std::string(text);
  return reply;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto reply = reply_from(std::string_view(reinterpret_cast<const char*>(data), size));

  // The limiter only arms timers when a request waits; complete() reads the answer at once.
  static boost::asio::io_context io;
  RateLimiter limiter(io.get_executor());
  const auto key = route_key_for(boost::beast::http::verb::post, "/channels/123/messages");
  const RateLimiter::Permit permit{"route " + key.route + " " + key.major, key, true};
  // Twice: the second answer meets the bucket the first one taught.
  check(limiter.complete(permit, reply) == (reply.status == 429));
  check(limiter.complete(permit, reply) == (reply.status == 429));

  check(describe_refusal(reply).starts_with("HTTP "));

  boost::system::error_code ec;
  const auto body = json::parse(reply.body, ec);
  if (ec) return 0;
  const auto bot = read_gateway_bot(body);
  if (bot.max_concurrency) check(*bot.max_concurrency >= 1);
  if (bot.start_limit_wait) {
    check(bot.start_limit_wait->count() >= 0);
    (void)(std::chrono::steady_clock::now() + *bot.start_limit_wait);
  }
  return 0;
}
