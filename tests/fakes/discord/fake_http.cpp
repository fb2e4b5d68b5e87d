#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/json/serialize.hpp>

#include "fake_impl.hpp"

namespace errand::fake_discord {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace json = boost::json;
using asio::use_awaitable;

namespace {

constexpr std::size_t kMaxRequestLine = 16 * 1024;

// Reads until the buffer holds the whole request line and returns it without consuming it,
// so the HTTP parser still sees the request whole. Throws when the peer closes first.
template <class Stream>
asio::awaitable<std::string> peek_request_line(Stream& stream, beast::flat_buffer& buffer) {
  while (true) {
    const auto data = buffer.data();
    const std::string_view seen(static_cast<const char*>(data.data()), data.size());
    if (const auto end = seen.find("\r\n"); end != std::string_view::npos)
      co_return std::string(seen.substr(0, end));
    if (seen.size() > kMaxRequestLine) co_return std::string(seen.substr(0, kMaxRequestLine));
    const auto n = co_await stream.async_read_some(buffer.prepare(4096), use_awaitable);
    buffer.commit(n);
  }
}

template <class Stream>
void shut(Stream& stream) {
  boost::system::error_code ec;
  beast::get_lowest_layer(stream).socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
}

}  // namespace

asio::awaitable<void> FakeDiscord::Impl::accept_loop(asio::ip::tcp::acceptor& acceptor,
                                                     bool resume_port) {
  while (acceptor.is_open()) {
    boost::system::error_code ec;
    auto socket = co_await acceptor.async_accept(asio::redirect_error(use_awaitable, ec));
    if (ec) {
      if (!acceptor.is_open()) co_return;
      continue;
    }
    asio::co_spawn(io_, serve(std::move(socket), resume_port), asio::detached);
  }
}

template <class Stream>
asio::awaitable<void> FakeDiscord::Impl::http_session(Stream stream, bool resume_port) {
  beast::flat_buffer buffer;
  try {
    while (true) {
      const auto request_line = co_await peek_request_line(stream, buffer);
      request_lines_.push_back(request_line);
      http::request_parser<http::string_body> parser;
      parser.body_limit(64u << 20);
      boost::system::error_code parse_error;
      co_await http::async_read(stream, buffer, parser,
                                asio::redirect_error(use_awaitable, parse_error));
      const auto space = request_line.find(' ');
      const bool origin_form = space != std::string::npos && space + 1 < request_line.size() &&
                               request_line[space + 1] == '/';
      if (parse_error || !origin_form) {
        // What a real server does with "GET ?v=10 HTTP/1.1": 400, and the connection ends.
        Response refusal{http::status::bad_request, 11};
        refusal.set(http::field::server, "fake-discord");
        refusal.set(http::field::content_type, "text/plain");
        refusal.body() = "400 Bad Request: the request target must start with '/'\n";
        refusal.keep_alive(false);
        refusal.prepare_payload();
        co_await http::async_write(stream, refusal, use_awaitable);
        break;
      }
      auto request = parser.release();
      if (beast::websocket::is_upgrade(request)) {
        auto peer = make_websocket_peer(std::move(stream));
        co_await run_peer(peer, std::move(request), request_line, resume_port);
        co_return;
      }
      auto parts = answer_http(request, request_line);
      const bool opens_thread = request.method() == http::verb::post &&
                                request_line.find("/threads ") != std::string::npos;
      if (opens_thread && thread_open_hold_.count() > 0) {
        asio::steady_timer hold(io_, thread_open_hold_);
        co_await hold.async_wait(use_awaitable);
      }
      Response response{static_cast<http::status>(parts.status), request.version()};
      response.set(http::field::server, "fake-discord");
      for (const auto& [name, value] : parts.headers) response.set(name, value);
      if (!parts.body.is_null()) {
        if (parts.body.is_string() && response.find(http::field::content_type) != response.end()) {
          response.body() = std::string(parts.body.as_string());
        } else {
          response.set(http::field::content_type, "application/json");
          response.body() = json::serialize(parts.body);
        }
      }
      response.keep_alive(request.keep_alive());
      response.prepare_payload();
      co_await http::async_write(stream, response, use_awaitable);
      if (!request.keep_alive()) break;
    }
  } catch (const boost::system::system_error&) {
  }
  shut(stream);
}

asio::awaitable<void> FakeDiscord::Impl::serve(asio::ip::tcp::socket socket, bool resume_port) {
  if (!tls_) {
    co_await http_session(beast::tcp_stream(std::move(socket)), resume_port);
    co_return;
  }
  beast::ssl_stream<beast::tcp_stream> stream(beast::tcp_stream(std::move(socket)), *tls_);
  boost::system::error_code ec;
  co_await stream.async_handshake(asio::ssl::stream_base::server,
                                  asio::redirect_error(use_awaitable, ec));
  // A client that refused the certificate hangs up here, as it should.
  if (ec) co_return;
  co_await http_session(std::move(stream), resume_port);
}

ResponseParts FakeDiscord::Impl::answer_http(const Request& request,
                                             const std::string& request_line) {
  const std::string target(request.target());
  if (target.rfind("/_control/", 0) == 0) return handle_control(request);
  RecordedRequest record;
  record.request_line = request_line;
  auto parts = handle_rest(request, record);
  record.status = parts.status;
  requests_.push_back(std::move(record));
  return parts;
}

}  // namespace errand::fake_discord
