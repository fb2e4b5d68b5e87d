#include "plugins/chat-discord/gateway_socket.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "plugins/chat-discord/rest_client.hpp"
#include "plugins/chat-discord/tls_client.hpp"

namespace errand::discord {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using asio::use_awaitable;

namespace {

template <class Next>
class Socket final : public GatewaySocket {
 public:
  template <class... Args>
  explicit Socket(Args&&... args) : ws_(std::forward<Args>(args)...) {}

  asio::awaitable<void> connect(const Endpoint& where, std::string target,
                                std::chrono::milliseconds timeout) override {
    auto executor = co_await asio::this_coro::executor;
    asio::ip::tcp::resolver resolver(executor);
    const auto results = co_await resolver.async_resolve(where.host, where.port, use_awaitable);
    auto& tcp = beast::get_lowest_layer(ws_);
    tcp.expires_after(timeout);
    co_await tcp.async_connect(results, use_awaitable);
    if constexpr (!std::is_same_v<Next, beast::tcp_stream>) {
      expect_peer(ws_.next_layer().native_handle(), where);
      tcp.expires_after(timeout);
      boost::system::error_code ec;
      co_await ws_.next_layer().async_handshake(asio::ssl::stream_base::client,
                                                asio::redirect_error(use_awaitable, ec));
      if (ec) throw tls_failure(ws_.next_layer().native_handle(), where, ec);
    }
    tcp.expires_never();
    auto options = websocket::stream_base::timeout::suggested(beast::role_type::client);
    options.handshake_timeout = timeout;
    ws_.set_option(options);
    ws_.set_option(websocket::stream_base::decorator([](websocket::request_type& request) {
      request.set(beast::http::field::user_agent, discord_user_agent());
    }));
    ws_.read_message_max(64u << 20);
    ws_.text(true);
    // A named string, not a temporary: GCC 12 destroys such a temporary twice when it lives
    // across a co_await.
    const std::string host = where.host_header();
    co_await ws_.async_handshake(host, target, use_awaitable);
  }

  asio::awaitable<std::string> read() override {
    beast::flat_buffer buffer;
    co_await ws_.async_read(buffer, use_awaitable);
    co_return beast::buffers_to_string(buffer.data());
  }

  asio::awaitable<void> write(std::string text) override {
    co_await ws_.async_write(asio::buffer(text), use_awaitable);
  }

  asio::awaitable<void> close(std::uint16_t code) override {
    co_await ws_.async_close(websocket::close_reason(code), use_awaitable);
  }

  void abort() noexcept override {
    boost::system::error_code ec;
    beast::get_lowest_layer(ws_).socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(ws_).socket().close(ec);
  }

  std::uint16_t close_code() const noexcept override { return ws_.reason().code; }
  std::string close_reason() const override { return std::string(ws_.reason().reason.c_str()); }

 private:
  websocket::stream<Next> ws_;
};

}  // namespace

std::unique_ptr<GatewaySocket> make_gateway_socket(asio::any_io_executor strand,
                                                   std::shared_ptr<asio::ssl::context> tls_context,
                                                   bool tls) {
  if (tls)
    return std::make_unique<Socket<beast::ssl_stream<beast::tcp_stream>>>(strand, *tls_context);
  return std::make_unique<Socket<beast::tcp_stream>>(strand);
}

}  // namespace errand::discord
