#include "plugins/sandbox-incus/client/unix_http.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include "plugins/sandbox-incus/client/socket_errors.hpp"

namespace errand::incus {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::as_tuple;
using asio::use_awaitable;

namespace {

// An instance list with recursion is the largest answer errand asks for; this leaves room for
// thousands of instances and still refuses a runaway body.
constexpr std::size_t kBodyLimit = 64u << 20;

}  // namespace

namespace {

// Deadline::max() means none: a wait for a session's exec lasts as long as the session.
void arm(UnixStream& stream, Deadline deadline) {
  if (deadline == Deadline::max())
    stream.expires_never();
  else
    stream.expires_at(deadline);
}

}  // namespace

long seconds_until(Deadline deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now());
  return std::max<long>(1, left.count());
}

asio::awaitable<sdk::Result<std::unique_ptr<UnixStream>>> connect_unix(
    asio::any_io_executor executor, std::filesystem::path socket, Deadline deadline) {
  auto stream = std::make_unique<UnixStream>(executor);
  arm(*stream, deadline);
  // Named, not temporaries: GCC 12 destroys a temporary that lives across a co_await twice.
  const asio::local::stream_protocol::endpoint endpoint(socket.string());
  auto [ec] = co_await stream->async_connect(endpoint, as_tuple(use_awaitable));
  if (ec == beast::error::timeout)
    co_return sdk::make_error(
        fmt::format("connecting to the Incus socket {} took longer than its deadline",
                    socket.string()),
        sdk::Error::Kind::unavailable);
  if (ec) co_return socket_connect_error(socket, ec);
  co_return std::move(stream);
}

asio::awaitable<sdk::Result<HttpAnswer>> http_exchange(asio::any_io_executor executor,
                                                       std::filesystem::path socket,
                                                       http::verb verb, std::string target,
                                                       std::string body, Deadline deadline,
                                                       std::string what) {
  auto connected = co_await connect_unix(executor, socket, deadline);
  if (!connected) co_return connected.error();
  auto& stream = **connected;

  http::request<http::string_body> request{verb, target, 11};
  // incusd does not look at Host; HTTP/1.1 wants one.
  request.set(http::field::host, "incus");
  request.set(http::field::user_agent, "errand");
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = std::move(body);
  }
  request.keep_alive(false);
  request.prepare_payload();

  http::response_parser<http::string_body> parser;
  parser.body_limit(kBodyLimit);
  beast::flat_buffer buffer;
  arm(stream, deadline);
  auto [write_ec, written] = co_await http::async_write(stream, request, as_tuple(use_awaitable));
  boost::system::error_code ec = write_ec;
  if (!ec) {
    auto [read_ec, read] =
        co_await http::async_read(stream, buffer, parser, as_tuple(use_awaitable));
    ec = read_ec;
  }
  if (ec == beast::error::timeout)
    co_return sdk::make_error(
        fmt::format("incusd did not answer {} before its deadline; it may be stuck (see its log)",
                    what),
        sdk::Error::Kind::unavailable);
  if (ec == http::error::body_limit)
    co_return sdk::make_error(
        fmt::format("Incus's answer to {} is larger than {} MiB, so it was refused", what,
                    kBodyLimit >> 20),
        sdk::Error::Kind::limit);
  if (ec)
    co_return sdk::make_error(
        fmt::format("the connection to incusd broke during {}: {}", what, ec.message()),
        sdk::Error::Kind::unavailable);
  auto& response = parser.get();
  co_return HttpAnswer{response.result_int(), std::move(response.body())};
}

}  // namespace errand::incus
