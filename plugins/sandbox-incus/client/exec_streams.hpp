#pragma once

// The byte streams of one exec, between Incus's websockets and local sockets. Incus's framing:
// data travels as binary messages, and an empty text message (or a close) ends a stream. Each
// pump holds one buffer and finishes a write before its next read, so a slow reader on one side
// slows the other side down instead of growing memory.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "plugins/sandbox-incus/client/unix_http.hpp"

namespace errand::incus {

using ExecWebsocket = boost::beast::websocket::stream<UnixStream>;
using LocalSocket = boost::asio::local::stream_protocol::socket;

// Connects to the websocket of operation_id that secret names, before deadline.
boost::asio::awaitable<sdk::Result<std::unique_ptr<ExecWebsocket>>> open_exec_websocket(
    boost::asio::any_io_executor executor, std::filesystem::path socket, std::string target,
    Deadline deadline, std::string what);

// Local bytes become binary messages; the local end's EOF becomes Incus's EOF, an empty text
// message. Returns when either side is finished.
boost::asio::awaitable<void> pump_local_to_websocket(LocalSocket& local, ExecWebsocket& ws);

// Binary messages are written to the local end; a text message, a close or a broken connection
// ends the local end's writing side, so its reader sees EOF. Once the local reader has gone,
// what still arrives is read and dropped, so the command is never blocked on a dead stdout.
boost::asio::awaitable<void> pump_websocket_to_local(ExecWebsocket& ws, LocalSocket& local);

// Reads and drops messages until the connection ends, which keeps pings answered and a close
// noticed on a websocket nothing is expected from.
boost::asio::awaitable<void> drain_websocket(ExecWebsocket& ws);

}  // namespace errand::incus
