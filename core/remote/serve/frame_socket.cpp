#include "core/remote/serve/frame_socket.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace errand::remote {

namespace asio = boost::asio;

asio::awaitable<sdk::Result<wire::Message>> FrameSocket::read() {
  for (;;) {
    auto next = reader_.next();
    if (!next) co_return sdk::refusal(next.error().message);
    if (*next) {
      auto decoded = wire::decode_message(**next);
      if (!decoded) co_return sdk::refusal(decoded.error().message);
      co_return std::move(*decoded);
    }
    boost::system::error_code ec;
    const std::size_t got = co_await socket_.async_read_some(
        asio::buffer(buffer_), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return sdk::make_error("the connection closed", sdk::Error::Kind::unavailable);
    reader_.feed(std::string_view(buffer_.data(), got));
  }
}

asio::awaitable<bool> FrameSocket::write(const wire::Message& message) {
  const std::string bytes = wire::encode_message(message);
  boost::system::error_code ec;
  co_await asio::async_write(socket_, asio::buffer(bytes),
                             asio::redirect_error(asio::use_awaitable, ec));
  co_return !ec;
}

void FrameSocket::close() noexcept {
  boost::system::error_code ignored;
  socket_.shutdown(asio::local::stream_protocol::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace errand::remote
