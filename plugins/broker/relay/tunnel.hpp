#pragma once

// An open CONNECT tunnel: bytes moved both ways until both sides have finished, spliced through
// a pipe per direction so the broker never reads them (common/broker_relay/splice_pump). It is
// opaque, and it is not cut when its session closes; it ends when either side's processes do.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <cstdint>

#include "common/broker_relay/splice_pump.hpp"

namespace errand::broker {

struct TunnelCounts {
  std::uint64_t up = 0;    // session to upstream
  std::uint64_t down = 0;  // upstream to session
};

// already_read: bytes the session sent after the CONNECT head, which go upstream first.
// open_pipe: how each direction gets its pipe; a test passes one that fails, to drive the copy
// path the broker falls back to when pipes run out.
boost::asio::awaitable<TunnelCounts> run_tunnel(
    boost::asio::local::stream_protocol::socket& client, boost::asio::ip::tcp::socket& upstream,
    boost::asio::const_buffer already_read,
    broker_relay::PipeOpener open_pipe = broker_relay::open_pipe);

}  // namespace errand::broker
