#pragma once

// The upstream half of a provider call, once the route has admitted it: dialling the provider,
// the TLS handshake when its base URL is https, sending the request with the real key in place
// of the stand-in, and relaying the answer scrubbed of that key.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <chrono>

#include "plugins/broker/relay/http_replies.hpp"
#include "plugins/broker/relay/upstream_dial.hpp"
#include "plugins/broker/settings.hpp"

namespace errand::broker {

struct Connection;
struct ProviderCall;

// call.provider must have an upstream. Every way this ends leaves the call's receipt. Returns
// whether the connection may carry another request.
boost::asio::awaitable<bool> exchange_with_provider(
    ProviderCall& call, Connection& connection, boost::beast::flat_buffer& buffer,
    boost::beast::http::request_parser<boost::beast::http::buffer_body>& parser,
    bool session_sent_api_key);

// Adds the real key where provider reads it (with placement "either", Authorization: Bearer,
// and x-api-key as well when also_x_api_key), and asks for an answer the broker can read to
// scrub. Every call the broker sends a provider takes its key from here.
void place_key(HeaderList& fields, const ProviderSettings& provider, bool also_x_api_key);

// How a failed dial of provider's base URL is logged and answered.
DialRefusal provider_dial_refusal(const ProviderSettings& provider, const DialResult& dial);

// Verifies the provider's certificate against its host name within the deadline.
boost::asio::awaitable<boost::system::error_code> tls_handshake(
    boost::asio::ssl::stream<boost::asio::ip::tcp::socket>& stream,
    std::chrono::milliseconds deadline);

}  // namespace errand::broker
