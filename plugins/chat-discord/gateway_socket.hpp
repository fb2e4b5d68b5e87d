#pragma once

// One websocket to the gateway, plain (tests, loopback) or TLS. Coroutines throw
// boost::system::system_error; the gateway client catches them. One read and one write (or
// close) may be in flight at a time, which the gateway client's write queue guarantees.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "plugins/chat-discord/service_url.hpp"

namespace errand::discord {

class GatewaySocket {
 public:
  virtual ~GatewaySocket() = default;
  // target: path and query, e.g. "/?v=10&encoding=json".
  virtual boost::asio::awaitable<void> connect(const Endpoint& where, std::string target,
                                               std::chrono::milliseconds timeout) = 0;
  virtual boost::asio::awaitable<std::string> read() = 0;
  virtual boost::asio::awaitable<void> write(std::string text) = 0;
  virtual boost::asio::awaitable<void> close(std::uint16_t code) = 0;
  // Drops the TCP connection at once, without a close frame.
  virtual void abort() noexcept = 0;
  // The code of the close frame the server sent, 0 when none arrived.
  virtual std::uint16_t close_code() const noexcept = 0;
  virtual std::string close_reason() const = 0;
};

std::unique_ptr<GatewaySocket> make_gateway_socket(
    boost::asio::any_io_executor strand, std::shared_ptr<boost::asio::ssl::context> tls_context,
    bool tls);

}  // namespace errand::discord
