#pragma once

// Provider routes: /provider/<name>/... on the session's socket. The session's stand-in is
// exchanged for the real key, which never reaches the session, and the answer is scrubbed of
// that key on the way back. Every call leaves a receipt.

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <string>

namespace errand::broker {

class BrokerSession;
struct Connection;

// route_target is what follows "/provider/": "<name>/v1/messages?beta=true". Returns whether
// the connection may carry another request.
boost::asio::awaitable<bool> handle_provider_call(
    BrokerSession& session, Connection& connection, boost::beast::flat_buffer& buffer,
    boost::beast::http::request_parser<boost::beast::http::buffer_body>& parser,
    std::string route_target);

}  // namespace errand::broker
