#include "tests/e2e/web_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/system/system_error.hpp>

namespace errand::e2e {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

http::request<http::string_body> request_of(const WebDoor& door, const WebRequest& request) {
  http::request<http::string_body> out(http::string_to_verb(request.method), request.target, 11);
  bool has_host = false;
  bool has_credentials = false;
  for (const auto& [name, value] : request.headers) {
    out.set(name, value);
    has_host = has_host || beast::iequals(name, "host");
    has_credentials =
        has_credentials || beast::iequals(name, "authorization") || beast::iequals(name, "cookie");
  }
  if (!has_host) out.set(http::field::host, door.host + ":" + std::to_string(door.port));
  if (!has_credentials && !door.secret.empty())
    out.set(http::field::authorization, "Bearer " + door.secret);
  out.set(http::field::connection, "close");
  out.body() = request.body;
  out.prepare_payload();
  return out;
}

// Asynchronous only because a beast::tcp_stream's deadline covers asynchronous operations: a
// daemon that accepts and never answers fails the request instead of hanging the test.
asio::awaitable<void> exchange(WebDoor door, http::request<http::string_body> out,
                               std::chrono::milliseconds timeout, WebReply& reply) {
  beast::tcp_stream stream(co_await asio::this_coro::executor);
  stream.expires_after(timeout);
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address(door.host), door.port);
  co_await stream.async_connect(endpoint, asio::use_awaitable);
  co_await http::async_write(stream, out, asio::use_awaitable);
  beast::flat_buffer buffer;
  http::response<http::string_body> in;
  co_await http::async_read(stream, buffer, in, asio::use_awaitable);
  reply.status = in.result_int();
  reply.body = std::move(in.body());
}

asio::awaitable<void> read_stream(WebDoor door, http::request<http::string_body> out,
                                  std::chrono::milliseconds timeout,
                                  const std::function<bool(const std::string&)>& enough,
                                  std::string& so_far) {
  beast::tcp_stream stream(co_await asio::this_coro::executor);
  stream.expires_after(timeout);
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address(door.host), door.port);
  co_await stream.async_connect(endpoint, asio::use_awaitable);
  co_await http::async_write(stream, out, asio::use_awaitable);
  char chunk[4096];
  while (!enough(so_far)) {
    const auto n = co_await stream.async_read_some(asio::buffer(chunk), asio::use_awaitable);
    so_far.append(chunk, n);
  }
}

}  // namespace

std::string web_stream(const WebDoor& door, const std::string& target,
                       const std::function<bool(const std::string&)>& enough,
                       std::chrono::milliseconds timeout) {
  std::string so_far;
  asio::io_context io;
  auto request = request_of(door, WebRequest::get(target, {{"Accept", "text/event-stream"}}));
  // A stream that ends or times out leaves what it had; the caller's checks say what was missing.
  asio::co_spawn(io, read_stream(door, std::move(request), timeout, enough, so_far),
                 [](const std::exception_ptr&) {});
  io.run();
  return so_far;
}

WebRequest WebRequest::get(std::string target, WebHeaders headers) {
  return WebRequest{"GET", std::move(target), std::move(headers), {}};
}

WebRequest WebRequest::post(std::string target, WebHeaders headers, std::string body) {
  return WebRequest{"POST", std::move(target), std::move(headers), std::move(body)};
}

WebReply web_request(const WebDoor& door, const WebRequest& request,
                     std::chrono::milliseconds timeout) {
  WebReply reply;
  asio::io_context io;
  asio::co_spawn(io, exchange(door, request_of(door, request), timeout, reply),
                 [&](const std::exception_ptr& failure) {
                   if (!failure) return;
                   try {
                     std::rethrow_exception(failure);
                   } catch (const boost::system::system_error& e) {
                     reply.problem = request.method + " " + request.target + " on " + door.host +
                                     ":" + std::to_string(door.port) + ": " + e.code().message();
                   }
                 });
  io.run();
  return reply;
}

}  // namespace errand::e2e
