#pragma once

// One HTTP exchange the daemon makes itself, on a fresh connection: dial, TLS with the peer's
// certificate and name checked, one request, one answer read up to a size, all under one
// deadline. No redirect is followed: a 3xx is an answer like any other, for the caller to refuse.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstddef>
#include <errand/sdk/result.hpp>
#include <string>

#include "common/tls_client.hpp"

namespace errand::common {

struct ExchangePeer {
  std::string host;  // a name, or an address (IPv6 without brackets)
  std::string port;
  bool host_is_address = false;
  bool tls = true;   // false only for a loopback peer the caller has judged
  TrustStore trust;  // with tls
  std::chrono::milliseconds deadline{30000};  // dial, handshake, request and answer together
  std::size_t max_answer_bytes = 1 << 20;
};

using HttpAnswer = boost::beast::http::response<boost::beast::http::string_body>;

// The answer, whatever its status; or why there is none, as the end of a sentence ("no answer
// within 30000 ms", the TLS refusal naming host:port, "the answer is larger than 1048576
// bytes"), of kind refused for a certificate refused and unavailable otherwise.
boost::asio::awaitable<sdk::Result<HttpAnswer>> exchange_once(
    boost::asio::any_io_executor executor, const ExchangePeer& peer,
    boost::beast::http::request<boost::beast::http::string_body> request);

}  // namespace errand::common
