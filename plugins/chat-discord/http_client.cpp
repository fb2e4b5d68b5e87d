#include "plugins/chat-discord/http_client.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <optional>

#include "plugins/chat-discord/tls_client.hpp"

namespace errand::discord {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::use_awaitable;

namespace {
constexpr std::chrono::seconds kIoTimeout{30};
constexpr std::size_t kMaxIdlePerOrigin = 4;
}  // namespace

struct HttpPool::Connection {
  std::string origin;
  std::optional<beast::tcp_stream> plain;
  std::optional<asio::ssl::stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;

  beast::tcp_stream& tcp() { return tls ? beast::get_lowest_layer(*tls) : *plain; }
};

HttpPool::HttpPool(asio::any_io_executor strand, std::shared_ptr<asio::ssl::context> tls_context)
    : strand_(std::move(strand)), tls_context_(std::move(tls_context)) {}

HttpPool::~HttpPool() = default;

void HttpPool::close_all() {
  idle_.clear();
}

asio::awaitable<std::unique_ptr<HttpPool::Connection>> HttpPool::connect(const Endpoint& endpoint) {
  auto c = std::make_unique<Connection>();
  c->origin = endpoint.origin_key();
  asio::ip::tcp::resolver resolver(strand_);
  const auto results = co_await resolver.async_resolve(endpoint.host, endpoint.port, use_awaitable);
  if (endpoint.tls) {
    c->tls.emplace(strand_, *tls_context_);
    expect_peer(c->tls->native_handle(), endpoint);
  } else {
    c->plain.emplace(strand_);
  }
  c->tcp().expires_after(kIoTimeout);
  co_await c->tcp().async_connect(results, use_awaitable);
  if (c->tls) {
    c->tcp().expires_after(kIoTimeout);
    boost::system::error_code ec;
    co_await c->tls->async_handshake(asio::ssl::stream_base::client,
                                     asio::redirect_error(use_awaitable, ec));
    if (ec) throw tls_failure(c->tls->native_handle(), endpoint, ec);
  }
  co_return c;
}

namespace {

template <class Stream>
asio::awaitable<void> write_and_read(Stream& stream, beast::tcp_stream& tcp,
                                     http::request<http::string_body>& request,
                                     beast::flat_buffer& buffer,
                                     http::response_parser<http::string_body>& parser,
                                     bool& sent_nothing) {
  tcp.expires_after(kIoTimeout);
  co_await http::async_write(stream, request, use_awaitable);
  tcp.expires_after(kIoTimeout);
  // A kept-alive connection the server already closed fails on the first read with no bytes.
  sent_nothing = true;
  co_await http::async_read_header(stream, buffer, parser, use_awaitable);
  sent_nothing = false;
  tcp.expires_after(kIoTimeout);
  co_await http::async_read(stream, buffer, parser, use_awaitable);
}

}  // namespace

asio::awaitable<sdk::Result<HttpReply>> HttpPool::exchange(Connection& c, const Endpoint& endpoint,
                                                           const HttpRequestSpec& spec,
                                                           std::size_t body_limit, bool& reusable,
                                                           bool& sent_nothing) {
  http::request<http::string_body> request{spec.method, spec.target, 11};
  request.set(http::field::host, endpoint.host_header());
  for (const auto& [name, value] : spec.headers) request.set(name, value);
  if (!spec.content_type.empty()) request.set(http::field::content_type, spec.content_type);
  request.body() = spec.body;
  request.keep_alive(true);
  request.prepare_payload();

  http::response_parser<http::string_body> parser;
  parser.body_limit(body_limit);
  parser.header_limit(64 * 1024);
  boost::system::error_code ec;
  try {
    if (c.tls)
      co_await write_and_read(*c.tls, c.tcp(), request, c.buffer, parser, sent_nothing);
    else
      co_await write_and_read(*c.plain, c.tcp(), request, c.buffer, parser, sent_nothing);
  } catch (const boost::system::system_error& e) {
    ec = e.code();
  }
  if (ec == http::error::body_limit)
    co_return sdk::make_error("the answer is larger than the " + std::to_string(body_limit) +
                                  "-byte limit for this request, so it was refused",
                              sdk::Error::Kind::limit);
  if (ec)
    co_return sdk::make_error("the connection to " + endpoint.host + " failed: " + ec.message(),
                              sdk::Error::Kind::unavailable);
  auto& response = parser.get();
  HttpReply reply;
  reply.status = response.result_int();
  for (const auto& field : response) {
    std::string name(field.name_string());
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    reply.headers[name] = std::string(field.value());
  }
  reply.body = std::move(response.body());
  reusable = parser.keep_alive();
  co_return reply;
}

asio::awaitable<sdk::Result<HttpReply>> HttpPool::send(const Endpoint& endpoint,
                                                       const HttpRequestSpec& request,
                                                       std::size_t body_limit) {
  const auto origin = endpoint.origin_key();
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<Connection> connection;
    bool from_pool = false;
    if (auto it = idle_.find(origin); it != idle_.end()) {
      connection = std::move(it->second);
      idle_.erase(it);
      from_pool = true;
    } else {
      try {
        connection = co_await connect(endpoint);
      } catch (const TlsFailure& e) {
        // A refused certificate stays refused; only a broken handshake is worth another try.
        co_return sdk::make_error(e.sentence(), e.verification() ? sdk::Error::Kind::refused
                                                                 : sdk::Error::Kind::unavailable);
      } catch (const boost::system::system_error& e) {
        co_return sdk::make_error("could not connect to " + endpoint.host + ":" + endpoint.port +
                                      ": " + e.code().message(),
                                  sdk::Error::Kind::unavailable);
      }
    }
    bool reusable = false;
    bool sent_nothing = false;
    auto reply =
        co_await exchange(*connection, endpoint, request, body_limit, reusable, sent_nothing);
    if (!reply && from_pool && sent_nothing && reply.error().kind == sdk::Error::Kind::unavailable)
      continue;
    if (reply && reusable && idle_.count(origin) < kMaxIdlePerOrigin)
      idle_.emplace(origin, std::move(connection));
    co_return reply;
  }
  co_return sdk::make_error("the connection to " + endpoint.host + " was closed twice in a row",
                            sdk::Error::Kind::unavailable);
}

}  // namespace errand::discord
