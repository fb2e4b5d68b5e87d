#pragma once

// One runner connection's byte stream as whole protocol messages: frames cut by FrameReader and
// decoded strictly. Use from one strand; at most one read and one write in flight.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <errand/sdk/result.hpp>
#include <string>

#include "core/remote/wire/frame_reader.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote {

class FrameSocket {
 public:
  explicit FrameSocket(boost::asio::local::stream_protocol::socket socket)
      : socket_(std::move(socket)) {}

  // The next message. Kind unavailable when the peer closed or the socket failed; kind refused
  // when what arrived breaks the framing or does not decode (then the stream is no use).
  boost::asio::awaitable<sdk::Result<wire::Message>> read();
  // False when the peer is gone.
  boost::asio::awaitable<bool> write(const wire::Message& message);
  void close() noexcept;

  boost::asio::local::stream_protocol::socket& socket() noexcept { return socket_; }

 private:
  boost::asio::local::stream_protocol::socket socket_;
  wire::FrameReader reader_;
  std::string buffer_ = std::string(64 * 1024, '\0');
};

}  // namespace errand::remote
