#pragma once

// The upstream half of a provider call, once the route has admitted it: dialling the provider,
// the TLS handshake when its base URL is https, sending the request with the real key in place
// of the stand-in, and relaying the answer scrubbed of that key.

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>

namespace errand::broker {

struct Connection;
struct ProviderCall;

// call.provider must have an upstream. Every way this ends leaves the call's receipt. Returns
// whether the connection may carry another request.
boost::asio::awaitable<bool> exchange_with_provider(
    ProviderCall& call, Connection& connection, boost::beast::flat_buffer& buffer,
    boost::beast::http::request_parser<boost::beast::http::buffer_body>& parser,
    bool session_sent_api_key);

}  // namespace errand::broker
