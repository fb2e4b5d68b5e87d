#pragma once

// A session's socket: accepting connections, and reading requests off each one and handing
// them to the proxy or the provider route.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <memory>

namespace errand::broker {

class BrokerSession;

boost::asio::awaitable<void> accept_connections(
    std::shared_ptr<BrokerSession> session,
    boost::asio::local::stream_protocol::acceptor& acceptor);

}  // namespace errand::broker
