#include "common/bounded_exchange.hpp"

#include <fmt/format.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace errand::common {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

namespace {

sdk::Error unavailable(std::string what) {
  return sdk::make_error(std::move(what), sdk::Error::Kind::unavailable);
}

template <class Stream>
asio::awaitable<sdk::Result<HttpAnswer>> write_and_read(Stream& stream, const ExchangePeer& peer,
                                                        http::request<http::string_body> request) {
  co_await http::async_write(stream, request, asio::use_awaitable);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(peer.max_answer_bytes);
  boost::system::error_code read;
  co_await http::async_read(stream, buffer, parser,
                            asio::redirect_error(asio::use_awaitable, read));
  if (read == http::error::body_limit || read == http::error::buffer_overflow ||
      read == http::error::header_limit)
    co_return unavailable(fmt::format("the answer is larger than {} bytes, more than it may be",
                                      peer.max_answer_bytes));
  if (read) throw boost::system::system_error(read);
  co_return parser.release();
}

}  // namespace

asio::awaitable<sdk::Result<HttpAnswer>> exchange_once(asio::any_io_executor executor,
                                                       const ExchangePeer& peer,
                                                       http::request<http::string_body> request) {
  request.prepare_payload();
  // co_await may not appear in a handler, so a failure is noted there and answered after it.
  boost::system::error_code failure;
  try {
    tcp::resolver resolver(executor);
    const auto endpoints =
        co_await resolver.async_resolve(peer.host, peer.port, asio::use_awaitable);
    if (!peer.tls) {
      beast::tcp_stream stream(executor);
      stream.expires_after(peer.deadline);
      co_await stream.async_connect(endpoints, asio::use_awaitable);
      auto answer = co_await write_and_read(stream, peer, std::move(request));
      co_return answer;
    }
    asio::ssl::context context(asio::ssl::context::tls_client);
    if (auto configured = configure_client_tls(context, peer.trust); !configured)
      co_return configured.error();
    beast::ssl_stream<beast::tcp_stream> stream(executor, context);
    const TlsPeer tls_peer{peer.host, peer.port, peer.host_is_address};
    if (auto expected = expect_peer(stream.native_handle(), tls_peer); !expected)
      co_return expected.error();
    beast::get_lowest_layer(stream).expires_after(peer.deadline);
    co_await beast::get_lowest_layer(stream).async_connect(endpoints, asio::use_awaitable);
    boost::system::error_code handshake;
    co_await stream.async_handshake(asio::ssl::stream_base::client,
                                    asio::redirect_error(asio::use_awaitable, handshake));
    if (handshake) {
      const auto refusal =
          describe_tls_failure(stream.native_handle(), tls_peer, handshake, peer.trust.ca_file_key);
      co_return sdk::make_error(refusal.sentence, refusal.verification
                                                      ? sdk::Error::Kind::refused
                                                      : sdk::Error::Kind::unavailable);
    }
    auto answer = co_await write_and_read(stream, peer, std::move(request));
    co_return answer;
  } catch (const boost::system::system_error& e) {
    failure = e.code();
  }
  co_return unavailable(failure == beast::error::timeout
                            ? fmt::format("no answer within {} ms", peer.deadline.count())
                            : failure.message());
}

}  // namespace errand::common
