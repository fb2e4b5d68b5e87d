#include "loopback_relay.hpp"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace errand::bench::noop {

namespace asio = boost::asio;
using asio::use_awaitable;
using tcp = asio::ip::tcp;
using unix_socket = asio::local::stream_protocol::socket;

namespace {

// Copies one direction until either side ends, then shuts both so the other direction ends too.
template <typename From, typename To>
asio::awaitable<void> pump(std::shared_ptr<From> from, std::shared_ptr<To> to) {
  std::array<char, 16384> buffer;
  while (true) {
    boost::system::error_code ec;
    const auto n = co_await from->async_read_some(asio::buffer(buffer),
                                                  asio::redirect_error(use_awaitable, ec));
    if (ec) break;
    co_await asio::async_write(*to, asio::buffer(buffer.data(), n),
                               asio::redirect_error(use_awaitable, ec));
    if (ec) break;
  }
  boost::system::error_code ignored;
  from->close(ignored);
  to->close(ignored);
}

asio::awaitable<void> link(tcp::socket client, std::filesystem::path broker_socket) {
  auto executor = client.get_executor();
  auto agent_side = std::make_shared<tcp::socket>(std::move(client));
  auto broker_side = std::make_shared<unix_socket>(executor);
  boost::system::error_code ec;
  const asio::local::stream_protocol::endpoint broker(broker_socket.string());
  co_await broker_side->async_connect(broker, asio::redirect_error(use_awaitable, ec));
  if (ec) co_return;  // the agent sees its connection closed, as it would see a broker that is down
  asio::co_spawn(executor, pump(agent_side, broker_side), asio::detached);
  asio::co_spawn(executor, pump(broker_side, agent_side), asio::detached);
}

}  // namespace

LoopbackRelay::LoopbackRelay(asio::any_io_executor executor, std::filesystem::path broker_socket)
    : strand_(asio::make_strand(executor)),
      acceptor_(strand_, tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), 0)),
      broker_socket_(std::move(broker_socket)),
      port_(acceptor_.local_endpoint().port()) {}

void LoopbackRelay::start() {
  asio::co_spawn(
      strand_,
      [self = shared_from_this()]() -> asio::awaitable<void> {
        while (true) {
          auto link_strand = asio::make_strand(self->strand_.get_inner_executor());
          boost::system::error_code ec;
          tcp::socket client(link_strand);
          co_await self->acceptor_.async_accept(client, asio::redirect_error(use_awaitable, ec));
          if (ec) co_return;
          auto accepted = link(std::move(client), self->broker_socket_);
          asio::co_spawn(link_strand, std::move(accepted), asio::detached);
        }
      },
      asio::detached);
}

void LoopbackRelay::close() {
  asio::post(strand_, [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
  });
}

}  // namespace errand::bench::noop
