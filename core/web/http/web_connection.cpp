#include "core/web/http/server_shared.hpp"
#include "core/web/http/socket_event_stream.hpp"
#include "core/web/http/static_files.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <array>
#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace errand::web {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::as_tuple;
using asio::use_awaitable;

namespace {

constexpr std::size_t kBodyLimit = 64 * 1024;
// The most connections the interface holds at once: a few people's pages and their event
// streams need tens. Past it a connection is answered 503, so no local program can spend the
// daemon's descriptors through the web interface.
constexpr std::size_t kMaxConnections = 256;
constexpr std::chrono::seconds kReadTimeout{30};
constexpr std::chrono::seconds kWriteTimeout{30};
constexpr std::chrono::seconds kDrainTimeout{2};
constexpr std::size_t kDrainLimit = 1024 * 1024;
constexpr std::string_view kApiPrefix = "/api/";
constexpr std::string_view kHtmlPolicy =
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'";

// Removes the connection from the ones stop() closes once its coroutine ends.
class OpenConnection {
 public:
  OpenConnection(ServerShared& shared, beast::tcp_stream& stream)
      : shared_(shared), id_(shared.next_connection++) {
    shared_.open_connections.emplace(id_, &stream);
  }
  OpenConnection(const OpenConnection&) = delete;
  OpenConnection& operator=(const OpenConnection&) = delete;
  ~OpenConnection() { shared_.open_connections.erase(id_); }

 private:
  ServerShared& shared_;
  std::uint64_t id_;
};

template <class Message>
void add_protective_headers(Message& message, std::string_view content_type) {
  message.set("X-Content-Type-Options", "nosniff");
  message.set("Referrer-Policy", "no-referrer");
  message.set("X-Frame-Options", "DENY");
  if (content_type.starts_with("text/html")) message.set("Content-Security-Policy", kHtmlPolicy);
}

bool is_api(std::string_view target) {
  return target.starts_with(kApiPrefix) || target == "/api" || target.starts_with("/api?");
}

struct Exchange {
  std::string method;
  std::string target;
  std::string peer;
};

void log_answer(ServerShared& shared, const Exchange& exchange, const HttpResponse& response) {
  const auto status = static_cast<unsigned>(response.status);
  if (status < 400) return;
  constexpr std::size_t kLongest = 400;
  const std::string_view body(response.body.data(), std::min(response.body.size(), kLongest));
  const auto level = status == 404   ? spdlog::level::debug
                     : status >= 500 ? spdlog::level::err
                                     : spdlog::level::info;
  shared.log->log(level, "web interface: {} {} from {} answered {}: {}", exchange.method,
                  exchange.target, exchange.peer, status, body);
}

// Writes one whole response; false when the connection cannot carry another request.
asio::awaitable<bool> write_response(ServerShared& shared, beast::tcp_stream& stream,
                                     const Exchange& exchange, HttpResponse response,
                                     unsigned version, bool keep_alive, bool head_only) {
  log_answer(shared, exchange, response);
  http::response<http::string_body> message{response.status, version};
  message.set(http::field::content_type, response.content_type);
  for (const auto& [name, value] : response.headers) message.set(name, value);
  add_protective_headers(message, response.content_type);
  message.keep_alive(keep_alive);
  message.body() = std::move(response.body);
  message.prepare_payload();
  // A HEAD answer carries the headers a GET would, Content-Length included, and no body.
  if (head_only) message.body().clear();
  stream.expires_after(kWriteTimeout);
  auto [ec, written] = co_await http::async_write(stream, message, as_tuple(use_awaitable));
  stream.expires_never();
  co_return !ec && keep_alive;
}

// The head of an event stream, then the router's writer until it returns; the connection
// closes after, which ends the response.
asio::awaitable<void> run_event_stream(ServerShared& shared, beast::tcp_stream& stream,
                                       const Exchange& exchange, const EventStreamWriter& writer,
                                       unsigned version, bool head_only) {
  http::response<http::empty_body> head{http::status::ok, version};
  head.set(http::field::content_type, "text/event-stream");
  head.set(http::field::cache_control, "no-store");
  // A proxy in front (web.publicUrl) would otherwise hold events back to fill its buffer.
  head.set("X-Accel-Buffering", "no");
  add_protective_headers(head, "text/event-stream");
  head.keep_alive(false);
  http::response_serializer<http::empty_body> serializer(head);
  stream.expires_after(kWriteTimeout);
  auto [ec, written] =
      co_await http::async_write_header(stream, serializer, as_tuple(use_awaitable));
  stream.expires_never();
  if (ec || head_only) co_return;
  SocketEventStream events(stream);
  try {
    auto running = writer(events);
    co_await std::move(running);
  } catch (const std::exception& e) {
    shared.log->error("web interface: the event stream {} from {} failed: {}", exchange.target,
                      exchange.peer, e.what());
  }
}

// The router's answer, or a 500 when it threw: the page gets a sentence, the log the reason.
asio::awaitable<RouteReply> ask_router(ServerShared& shared, const HttpRequest& request,
                                       const Exchange& exchange, Access access) {
  std::string failure;
  try {
    auto handling = shared.router->handle(request, access);
    RouteReply reply = co_await std::move(handling);
    co_return reply;
  } catch (const std::exception& e) {
    failure = e.what();
  }
  shared.log->error("web interface: {} {} failed inside errand: {}", exchange.method,
                    exchange.target, failure);
  co_return json_error(http::status::internal_server_error,
                       "errand failed while answering this request; the daemon's log says why");
}

asio::awaitable<RouteReply> answer(ServerShared& shared, const HttpRequest& request,
                                   const Exchange& exchange, Access access) {
  const std::string_view target = exchange.target;
  if (target.starts_with(kApiPrefix)) {
    auto asking = ask_router(shared, request, exchange, access);
    co_return co_await std::move(asking);
  }
  if (is_api(target))
    co_return json_error(http::status::not_found, fmt::format("there is no API at {}", target));
  const auto method = request.method();
  if (method != http::verb::get && method != http::verb::head) {
    auto refusal = json_error(http::status::method_not_allowed,
                              fmt::format("{} {} is not allowed: the front-end's files are only "
                                          "read, with GET or HEAD",
                                          exchange.method, target));
    refusal.headers.emplace_back("Allow", "GET, HEAD");
    co_return refusal;
  }
  co_return front_end_file(shared.front_end_dir, target);
}

bool connection_gone(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
         ec == asio::error::bad_descriptor || ec == beast::error::timeout;
}

// The answer to a request refused before it reached the router, and whether the connection
// can carry another request after it.
struct EarlyAnswer {
  HttpResponse response;
  bool keep_alive = false;
};

HttpResponse too_large() {
  return json_error(http::status::payload_too_large,
                    fmt::format("the request's body is over the {} KiB a request to errand may "
                                "carry",
                                kBodyLimit / 1024));
}

// What the head alone decides: a malformed target, a refused request (judged before its body
// is read, so a foreign page's body never is), the access secret's answer (a refusal, or the
// trade of the secret in the address for its cookie), or a declared body over the limit. What
// the request may do otherwise goes into access.
std::optional<EarlyAnswer> judge_head(ServerShared& shared,
                                      const http::request_parser<http::string_body>& parser,
                                      std::string_view target, Access& access) {
  if (!target.starts_with('/')) {
    return EarlyAnswer{json_error(http::status::bad_request,
                                  "the request's target must be a path starting with /"),
                       false};
  }
  // With its body left unread, the connection cannot carry another request.
  const bool reusable = parser.is_done() && parser.get().keep_alive();
  if (auto refusal = refuse_request(parser.get(), shared.allowed))
    return EarlyAnswer{std::move(*refusal), reusable};
  auto verdict = judge_access(parser.get(), shared.access->current(), shared.door);
  if (verdict.answer) return EarlyAnswer{std::move(*verdict.answer), reusable};
  access = verdict.access;
  if (const auto length = parser.content_length(); length && *length > kBodyLimit)
    return EarlyAnswer{too_large(), false};
  return std::nullopt;
}

// One request and its answer; false when the connection should close after it.
asio::awaitable<bool> serve_request(ServerShared& shared, beast::tcp_stream& stream,
                                    beast::flat_buffer& buffer, const std::string& peer) {
  http::request_parser<http::string_body> parser;
  // No limit while the head is read, so the checks judge a request before its declared size
  // does; the limit is set before the body is read.
  parser.body_limit(boost::none);
  stream.expires_after(kReadTimeout);
  auto [head_error, head_bytes] =
      co_await http::async_read_header(stream, buffer, parser, as_tuple(use_awaitable));
  const Exchange exchange{std::string(parser.get().method_string()),
                          std::string(parser.get().target()), peer};
  const unsigned version = parser.get().version() == 10 ? 10 : 11;
  const bool head_only = parser.get().method() == http::verb::head;
  std::optional<EarlyAnswer> early;
  Access access = Access::observer;
  if (head_error) {
    stream.expires_never();
    if (connection_gone(head_error)) co_return false;
    early = EarlyAnswer{
        json_error(http::status::bad_request,
                   fmt::format("the request's head could not be read ({}); it must be HTTP/1.1 "
                               "with headers under 8 KiB",
                               head_error.message())),
        false};
  } else {
    early = judge_head(shared, parser, exchange.target, access);
  }
  if (!early && !parser.is_done()) {
    parser.body_limit(kBodyLimit);
    auto [body_error, body_bytes] =
        co_await http::async_read(stream, buffer, parser, as_tuple(use_awaitable));
    if (body_error == http::error::body_limit)
      early = EarlyAnswer{too_large(), false};
    else if (body_error)
      co_return false;
  }
  stream.expires_never();
  if (early) {
    auto writing = write_response(shared, stream, exchange, std::move(early->response), version,
                                  early->keep_alive, head_only);
    co_return co_await std::move(writing);
  }
  HttpRequest request = parser.release();
  const bool keep_alive = request.keep_alive();
  auto answering = answer(shared, request, exchange, access);
  RouteReply reply = co_await std::move(answering);
  if (auto* writer = std::get_if<EventStreamWriter>(&reply)) {
    auto streaming = run_event_stream(shared, stream, exchange, *writer, version, head_only);
    co_await std::move(streaming);
    co_return false;
  }
  auto writing = write_response(shared, stream, exchange, std::move(std::get<HttpResponse>(reply)),
                                version, keep_alive, head_only);
  co_return co_await std::move(writing);
}

// Closing a socket with unread bytes in it (the body of a request refused 413 or 403) makes
// the kernel reset the connection, which can destroy the answer before the client reads it.
// So the sending side is shut first and what the client still sends is read and dropped, for
// a little while, before the close.
asio::awaitable<void> close_gently(ServerShared& shared, beast::tcp_stream& stream) {
  boost::system::error_code ec;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  std::array<char, 4096> discard{};
  std::size_t drained = 0;
  stream.expires_after(kDrainTimeout);
  while (!ec && !shared.stopped && drained < kDrainLimit) {
    auto [read_error, n] =
        co_await stream.async_read_some(asio::buffer(discard), as_tuple(use_awaitable));
    ec = read_error;
    drained += n;
  }
  stream.close();
}

}  // namespace

asio::awaitable<void> serve_connection(std::shared_ptr<ServerShared> shared,
                                       asio::ip::tcp::socket socket) {
  boost::system::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  const std::string peer = ec ? std::string("an unknown peer")
                              : fmt::format("{}:{}", remote.address().to_string(), remote.port());
  beast::tcp_stream stream(std::move(socket));
  OpenConnection open(*shared, stream);
  beast::flat_buffer buffer;
  // Counted as each connection starts, on the server's one thread, so the count is exact.
  if (shared->open_connections.size() > kMaxConnections) {
    if (!shared->over_connection_cap)
      shared->log->warn(
          "web interface: {} connections are open, the most it holds; refusing new "
          "ones with 503 until some close",
          kMaxConnections);
    shared->over_connection_cap = true;
    const Exchange exchange{"(any)", "(any)", peer};
    auto refusing = write_response(
        *shared, stream, exchange,
        json_error(http::status::service_unavailable,
                   fmt::format("the web interface already has {} connections open, the most it "
                               "holds; close some pages and try again",
                               kMaxConnections)),
        11, false, false);
    co_await std::move(refusing);
    auto closing = close_gently(*shared, stream);
    co_await std::move(closing);
    co_return;
  }
  if (shared->open_connections.size() < kMaxConnections) shared->over_connection_cap = false;
  try {
    while (!shared->stopped) {
      auto serving = serve_request(*shared, stream, buffer, peer);
      const bool more = co_await std::move(serving);
      if (!more) break;
    }
  } catch (const std::exception& e) {
    shared->log->error("web interface: the connection from {} failed: {}", peer, e.what());
  }
  auto closing = close_gently(*shared, stream);
  co_await std::move(closing);
}

}  // namespace errand::web
