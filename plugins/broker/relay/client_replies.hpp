#pragma once

// Writing the broker's own answers to the session's connection. Proxy requests and provider
// calls answer the same way, so the write, and the rule that a failed write ends the
// connection, live in one place.

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/message.hpp>
#include <string_view>

#include "plugins/broker/relay/http_replies.hpp"

namespace errand::broker {

struct Connection;

// Returns whether the connection may carry another request: only when keep_alive was asked
// for and the whole answer was written.
boost::asio::awaitable<bool> send_reply(Connection& connection, unsigned status,
                                        std::string_view body, bool keep_alive,
                                        const HeaderList& extra = {});

// A client that sent "Expect: 100-continue" waits for this before it sends the body. A failed
// write is left for the body read to notice.
boost::asio::awaitable<void> send_continue_if_expected(
    Connection& connection, const boost::beast::http::request_header<>& head);

}  // namespace errand::broker
