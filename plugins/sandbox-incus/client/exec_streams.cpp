#include "plugins/sandbox-incus/client/exec_streams.hpp"

#include <fmt/format.h>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>

namespace errand::incus {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using asio::as_tuple;
using asio::use_awaitable;

namespace {

// Incus copies its pipes in 32 KiB reads; twice that keeps a message in one read.
constexpr std::size_t kChunk = 64 * 1024;
constexpr std::size_t kMessageLimit = 16u << 20;

}  // namespace

asio::awaitable<sdk::Result<std::unique_ptr<ExecWebsocket>>> open_exec_websocket(
    asio::any_io_executor executor, std::filesystem::path socket, std::string target,
    Deadline deadline, std::string what) {
  auto connected = co_await connect_unix(executor, socket, deadline);
  if (!connected) co_return connected.error();
  auto ws = std::make_unique<ExecWebsocket>(std::move(**connected));
  // The websocket's own timer replaces the stream's once the handshake starts.
  beast::get_lowest_layer(*ws).expires_never();
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = std::max<std::chrono::steady_clock::duration>(
      std::chrono::milliseconds(1), deadline - std::chrono::steady_clock::now());
  // A session's stream may stay quiet for hours; incusd pings it every 10 s and a dead incusd
  // shows as a closed socket.
  timeouts.idle_timeout = websocket::stream_base::none();
  timeouts.keep_alive_pings = false;
  ws->set_option(timeouts);
  ws->read_message_max(kMessageLimit);
  ws->binary(true);
  auto [ec] = co_await ws->async_handshake("incus", target, as_tuple(use_awaitable));
  if (ec == beast::error::timeout)
    co_return sdk::make_error(fmt::format("incusd did not accept the websocket of {} before its "
                                          "deadline",
                                          what),
                              sdk::Error::Kind::unavailable);
  if (ec)
    co_return sdk::make_error(
        fmt::format("incusd refused the websocket of {}: {}", what, ec.message()),
        sdk::Error::Kind::unavailable);
  co_return std::move(ws);
}

asio::awaitable<void> pump_local_to_websocket(LocalSocket& local, ExecWebsocket& ws) {
  std::array<char, kChunk> chunk;
  for (;;) {
    auto [read_ec, length] =
        co_await local.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    if (read_ec) {
      if (read_ec == asio::error::operation_aborted) co_return;
      ws.text(true);
      co_await ws.async_write(asio::const_buffer(), as_tuple(use_awaitable));
      co_return;
    }
    ws.binary(true);
    auto [write_ec, written] =
        co_await ws.async_write(asio::buffer(chunk.data(), length), as_tuple(use_awaitable));
    if (write_ec) co_return;
  }
}

asio::awaitable<void> pump_websocket_to_local(ExecWebsocket& ws, LocalSocket& local) {
  std::array<char, kChunk> chunk;
  bool reader_gone = false;
  for (;;) {
    auto [read_ec, length] =
        co_await ws.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    if (read_ec || ws.got_text()) break;
    if (reader_gone || length == 0) continue;
    auto [write_ec, written] = co_await asio::async_write(local, asio::buffer(chunk.data(), length),
                                                          as_tuple(use_awaitable));
    if (write_ec == asio::error::operation_aborted) co_return;
    if (write_ec) reader_gone = true;
  }
  boost::system::error_code ignored;
  local.shutdown(LocalSocket::shutdown_send, ignored);
}

asio::awaitable<void> drain_websocket(ExecWebsocket& ws) {
  beast::flat_buffer buffer;
  for (;;) {
    auto [ec, length] = co_await ws.async_read(buffer, as_tuple(use_awaitable));
    if (ec) co_return;
    buffer.consume(buffer.size());
  }
}

}  // namespace errand::incus
