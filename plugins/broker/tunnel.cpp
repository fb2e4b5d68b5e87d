#include "plugins/broker/tunnel.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <memory>

namespace errand::broker {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

namespace {

constexpr std::size_t kTunnelBuffer = 256 * 1024;
constexpr int kPipeSize = 1024 * 1024;

void close_both(auto& from, auto& to) {
  boost::system::error_code ignored;
  from.close(ignored);
  to.close(ignored);
}

// Copies through user space; used only when a pipe cannot be had for splice.
template <class From, class To>
asio::awaitable<void> copy_pump(From& from, To& to, std::uint64_t& counted) {
  auto buffer = std::make_unique<char[]>(kTunnelBuffer);
  while (true) {
    const auto [read_ec, n] = co_await from.async_read_some(
        asio::buffer(buffer.get(), kTunnelBuffer), asio::as_tuple(asio::use_awaitable));
    if (n > 0) {
      const auto [write_ec, written] = co_await asio::async_write(
          to, asio::buffer(buffer.get(), n), asio::as_tuple(asio::use_awaitable));
      counted += written;
      if (write_ec) {
        close_both(from, to);
        co_return;
      }
    }
    if (read_ec) {
      boost::system::error_code ignored;
      if (read_ec == asio::error::eof) {
        // Half-close: the other direction may still be sending.
        to.shutdown(asio::socket_base::shutdown_send, ignored);
      } else {
        close_both(from, to);
      }
      co_return;
    }
  }
}

// Moves bytes socket -> pipe -> socket inside the kernel with splice(2), so a tunnel costs no
// copies through the broker's memory; readiness comes from the sockets' own reactor waits.
template <class From, class To>
asio::awaitable<void> splice_pump(From& from, To& to, std::uint64_t& counted) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) {
    co_await copy_pump(from, to, counted);
    co_return;
  }
  struct ClosePipe {
    int* fds;
    ~ClosePipe() {
      ::close(fds[0]);
      ::close(fds[1]);
    }
  } close_pipe{pipe_fds};
  ::fcntl(pipe_fds[1], F_SETPIPE_SZ, kPipeSize);
  boost::system::error_code ignored;
  from.native_non_blocking(true, ignored);
  to.native_non_blocking(true, ignored);
  const int in_fd = from.native_handle();
  const int out_fd = to.native_handle();
  while (true) {
    const ssize_t got = ::splice(in_fd, nullptr, pipe_fds[1], nullptr, kPipeSize,
                                 SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (got < 0 && errno == EAGAIN) {
      const auto [ec] = co_await from.async_wait(asio::socket_base::wait_read,
                                                 asio::as_tuple(asio::use_awaitable));
      if (ec) {
        close_both(from, to);
        co_return;
      }
      continue;
    }
    if (got == 0) {
      to.shutdown(asio::socket_base::shutdown_send, ignored);
      co_return;
    }
    if (got < 0) {
      close_both(from, to);
      co_return;
    }
    std::size_t left = static_cast<std::size_t>(got);
    while (left > 0) {
      const ssize_t put =
          ::splice(pipe_fds[0], nullptr, out_fd, nullptr, left, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (put < 0 && errno == EAGAIN) {
        const auto [ec] = co_await to.async_wait(asio::socket_base::wait_write,
                                                 asio::as_tuple(asio::use_awaitable));
        if (ec) {
          close_both(from, to);
          co_return;
        }
        continue;
      }
      if (put <= 0) {
        close_both(from, to);
        co_return;
      }
      left -= static_cast<std::size_t>(put);
      counted += static_cast<std::uint64_t>(put);
    }
  }
}

}  // namespace

asio::awaitable<TunnelCounts> run_tunnel(asio::local::stream_protocol::socket& client,
                                         asio::ip::tcp::socket& upstream,
                                         asio::const_buffer already_read) {
  TunnelCounts counts;
  if (already_read.size() > 0) {
    const auto [ec, n] =
        co_await asio::async_write(upstream, already_read, asio::as_tuple(asio::use_awaitable));
    counts.up += n;
    if (ec) co_return counts;
  }
  co_await (splice_pump(client, upstream, counts.up) && splice_pump(upstream, client, counts.down));
  co_return counts;
}

}  // namespace errand::broker
