// The fake Discord is as strict and as honest on the wire as the real service: a request line
// whose target does not start with '/' is refused, and the rate-limit headers count what was
// really sent in the bucket within its window.

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "fake_discord.hpp"

namespace fd = errand::fake_discord;
namespace asio = boost::asio;
namespace http = boost::beast::http;
using namespace std::chrono_literals;

namespace {

asio::ip::tcp::socket connect_to(asio::io_context& io, std::uint16_t port) {
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), port});
  return socket;
}

http::response<http::string_body> post_message(const fd::FakeDiscord& fake,
                                               const std::string& channel) {
  asio::io_context io;
  auto socket = connect_to(io, fake.port());
  http::request<http::string_body> request{http::verb::post,
                                           "/api/v10/channels/" + channel + "/messages", 11};
  request.set(http::field::host, "127.0.0.1:" + std::to_string(fake.port()));
  request.set(http::field::user_agent, "DiscordBot (https://example.invalid, 1)");
  request.set(http::field::authorization, "Bot " + fake.options().token);
  request.set(http::field::content_type, "application/json");
  request.body() = R"({"content":"counted"})";
  request.prepare_payload();
  http::write(socket, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return response;
}

int remaining(const http::response<http::string_body>& r) {
  return std::stoi(std::string(r.at("X-RateLimit-Remaining")));
}

double reset_after(const http::response<http::string_body>& r) {
  return std::stod(std::string(r.at("X-RateLimit-Reset-After")));
}

}  // namespace

TEST_CASE("the fake refuses a request line whose target does not start with '/'") {
  fd::FakeDiscord fake;
  asio::io_context io;
  auto socket = connect_to(io, fake.port());
  // The line errand sent before a gateway URL without a path was handled.
  const std::string upgrade =
      "GET ?v=10&encoding=json HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      "Sec-WebSocket-Version: 13\r\n\r\n";
  asio::write(socket, asio::buffer(upgrade));
  std::string answer;
  boost::system::error_code ec;
  asio::read(socket, asio::dynamic_buffer(answer), ec);  // until the fake closes
  CHECK(answer.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(fake.gateway_connections().empty());
  REQUIRE(fd::FakeDiscord::wait_until([&] { return !fake.request_lines().empty(); }, 2s));
  CHECK(fake.request_lines().back() == "GET ?v=10&encoding=json HTTP/1.1");
}

TEST_CASE("rate-limit headers count the bucket's requests and reset with its window") {
  fd::FakeOptions options;
  options.channel_messages_per_window = 3;
  options.channel_window = 600ms;
  fd::FakeDiscord fake(options);
  const auto channel = options.channel_id;

  const auto first = post_message(fake, channel);
  REQUIRE(first.result_int() == 200);
  CHECK(first.at("X-RateLimit-Limit") == "3");
  CHECK(remaining(first) == 2);
  CHECK(reset_after(first) > 0.0);
  CHECK(reset_after(first) <= 0.6);
  const auto bucket = std::string(first.at("X-RateLimit-Bucket"));
  CHECK_FALSE(bucket.empty());
  // Reset is the same moment as Unix time: now plus Reset-After, give or take the round trip.
  const auto now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const auto reset = std::stod(std::string(first.at("X-RateLimit-Reset")));
  CHECK(reset > now - 1.0);
  CHECK(reset < now + 1.6);

  const auto second = post_message(fake, channel);
  CHECK(remaining(second) == 1);
  CHECK(reset_after(second) <= reset_after(first));
  CHECK(second.at("X-RateLimit-Bucket") == bucket);
  const auto third = post_message(fake, channel);
  CHECK(remaining(third) == 0);

  // A fourth within the window is the bucket's 429, still counted honestly.
  const auto limited = post_message(fake, channel);
  CHECK(limited.result_int() == 429);
  CHECK(remaining(limited) == 0);
  CHECK(reset_after(limited) <= reset_after(third));

  // Another channel is another major parameter: its own count in the same bucket.
  const auto thread = fake.create_thread("elsewhere");
  const auto other = post_message(fake, thread);
  REQUIRE(other.result_int() == 200);
  CHECK(remaining(other) == 2);
  CHECK(other.at("X-RateLimit-Bucket") == bucket);

  // After the window the count starts again.
  std::this_thread::sleep_for(
      std::chrono::milliseconds(static_cast<int>(reset_after(limited) * 1000) + 50));
  const auto later = post_message(fake, channel);
  REQUIRE(later.result_int() == 200);
  CHECK(remaining(later) == 2);
  CHECK(reset_after(later) >= reset_after(limited));
}
