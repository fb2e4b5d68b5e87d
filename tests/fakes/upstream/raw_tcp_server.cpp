#include "tests/fakes/upstream/raw_tcp_server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <memory>

namespace errand::fakes {
namespace asio = boost::asio;
using asio::ip::tcp;

struct RawTcpSession {
  static asio::awaitable<void> run(RawTcpServer& server, tcp::socket socket) {
    constexpr std::size_t kBuffer = 256 * 1024;
    auto buffer = std::make_unique<char[]>(kBuffer);
    std::uint64_t received = 0;
    while (true) {
      auto [ec, n] = co_await socket.async_read_some(asio::buffer(buffer.get(), kBuffer),
                                                     asio::as_tuple(asio::use_awaitable));
      if (n > 0 && server.mode_ == RawTcpServer::Mode::echo) {
        auto [wec, w] = co_await asio::async_write(socket, asio::buffer(buffer.get(), n),
                                                   asio::as_tuple(asio::use_awaitable));
        if (wec) co_return;
      }
      received += n;
      const auto expect = server.sink_expect_.load();
      if (server.mode_ == RawTcpServer::Mode::sink && expect > 0 && received >= expect) {
        received -= expect;
        auto [wec, w] = co_await asio::async_write(socket, asio::buffer("k", 1),
                                                   asio::as_tuple(asio::use_awaitable));
        if (wec) co_return;
      }
      if (ec) {
        boost::system::error_code ignored;
        socket.shutdown(tcp::socket::shutdown_send, ignored);
        co_return;
      }
    }
  }

  static asio::awaitable<void> accept(RawTcpServer& server) {
    while (true) {
      auto [ec, socket] =
          co_await server.acceptor_.async_accept(asio::as_tuple(asio::use_awaitable));
      if (ec) co_return;
      ++server.accepted_;
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      asio::co_spawn(server.io_, run(server, std::move(socket)), asio::detached);
    }
  }
};

RawTcpServer::RawTcpServer(Mode mode, std::uint64_t sink_expect)
    : mode_(mode), sink_expect_(sink_expect), acceptor_(io_) {
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  asio::co_spawn(io_, RawTcpSession::accept(*this), asio::detached);
  thread_ = std::thread([this] { io_.run(); });
}

RawTcpServer::~RawTcpServer() {
  io_.stop();
  thread_.join();
}

}  // namespace errand::fakes
