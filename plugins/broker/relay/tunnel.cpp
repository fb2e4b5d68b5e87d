#include "plugins/broker/relay/tunnel.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace errand::broker {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using broker_relay::SplicePump;

namespace {

void close_both(auto& from, auto& to) {
  boost::system::error_code ignored;
  from.close(ignored);
  to.close(ignored);
}

// One direction. The pump moves bytes until a socket would block; only then does this wait on
// the reactor, so a busy tunnel costs no round trip through it per chunk. A failure on either
// socket closes both, which also ends the other direction's wait.
template <class From, class To>
asio::awaitable<void> pump_one_way(From& from, To& to, std::uint64_t& counted,
                                   broker_relay::PipeOpener open_pipe) {
  SplicePump pump(open_pipe);
  while (true) {
    const auto step = pump.run(from.native_handle(), to.native_handle());
    counted = pump.moved();
    switch (step) {
      case SplicePump::Step::wait_readable: {
        const auto [ec] = co_await from.async_wait(asio::socket_base::wait_read,
                                                   asio::as_tuple(asio::use_awaitable));
        if (ec) {
          close_both(from, to);
          co_return;
        }
        break;
      }
      case SplicePump::Step::wait_writable: {
        const auto [ec] = co_await to.async_wait(asio::socket_base::wait_write,
                                                 asio::as_tuple(asio::use_awaitable));
        if (ec) {
          close_both(from, to);
          co_return;
        }
        break;
      }
      case SplicePump::Step::yield:
        // Lets the session's other connections have the strand before the next burst.
        co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
        break;
      case SplicePump::Step::finished: co_return;
      case SplicePump::Step::failed: close_both(from, to); co_return;
    }
  }
}

}  // namespace

asio::awaitable<TunnelCounts> run_tunnel(asio::local::stream_protocol::socket& client,
                                         asio::ip::tcp::socket& upstream,
                                         asio::const_buffer already_read,
                                         broker_relay::PipeOpener open_pipe) {
  TunnelCounts counts;
  if (already_read.size() > 0) {
    const auto [ec, n] =
        co_await asio::async_write(upstream, already_read, asio::as_tuple(asio::use_awaitable));
    if (ec) co_return counts;
  }
  // The pump's splices and sends must never block the io thread.
  boost::system::error_code ignored;
  client.native_non_blocking(true, ignored);
  upstream.native_non_blocking(true, ignored);
  std::uint64_t up = 0, down = 0;
  co_await (pump_one_way(client, upstream, up, open_pipe) &&
            pump_one_way(upstream, client, down, open_pipe));
  counts.up = already_read.size() + up;
  counts.down = down;
  co_return counts;
}

}  // namespace errand::broker
