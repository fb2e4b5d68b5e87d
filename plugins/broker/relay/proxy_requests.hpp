#pragma once

// Proxy traffic: CONNECT tunnels and absolute-form plain http:// requests, both held to the
// proxy credential, the egress ports, the allowlist and grants, and the address rule.

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>

#include "plugins/broker/relay/request_head.hpp"

namespace errand::broker {

class BrokerSession;
struct Connection;

// Returns whether the connection may carry another request.
boost::asio::awaitable<bool> handle_proxy_request(
    BrokerSession& session, Connection& connection, boost::beast::flat_buffer& buffer,
    boost::beast::http::request_parser<boost::beast::http::buffer_body>& parser,
    const ClassifiedRequest& request);

// The 403 body for a host that is neither allowed nor granted: what to ask for, or, for
// anything that is not one exact name, that nothing can be suggested.
std::string host_refusal_text(std::string_view host, bool suggestable);

}  // namespace errand::broker
