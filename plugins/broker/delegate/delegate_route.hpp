#pragma once

// POST /delegate on a session's socket: the delegate command's question about one artefact.
// The request is held to the proxy credential and checked whole (question, artefact name,
// length, UTF-8) before the core is asked to admit it, so nothing refused is counted; an
// admitted call is answered by delegate_call.

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <string_view>

#include "plugins/broker/relay/request_head.hpp"

namespace errand::broker {

class BrokerSession;
struct Connection;

inline constexpr std::string_view kDelegateTarget = "/delegate";

// Returns whether the connection may carry another request (never: the wire closes it).
boost::asio::awaitable<bool> handle_delegate(
    BrokerSession& session, Connection& connection, boost::beast::flat_buffer& buffer,
    boost::beast::http::request_parser<boost::beast::http::buffer_body>& parser,
    const ClassifiedRequest& request);

}  // namespace errand::broker
