#include "core/web/http/socket_event_stream.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <utility>

namespace errand::web {
namespace asio = boost::asio;

namespace {

// A page that stops reading would hold a write forever; past this the connection is closed.
constexpr std::chrono::seconds kEventWriteTimeout{30};

// Names come from errand's code, never from a page; a line break in one would still split
// the frame, so it is dropped.
std::string single_line(std::string_view text) {
  std::string line;
  for (const char c : text) {
    if (c != '\n' && c != '\r') line += c;
  }
  return line;
}

}  // namespace

std::string event_frame(std::string_view event, std::string_view data) {
  std::string frame = "event: " + single_line(event) + "\n";
  std::size_t start = 0;
  while (true) {
    const auto end = data.find('\n', start);
    auto line = data.substr(start, end == std::string_view::npos ? end : end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    frame += "data: ";
    frame += line;
    frame += '\n';
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  frame += '\n';
  return frame;
}

asio::awaitable<bool> SocketEventStream::send(std::string_view event, std::string_view data) {
  auto frame = event_frame(event, data);
  co_return co_await write(std::move(frame));
}

asio::awaitable<bool> SocketEventStream::keep_alive() {
  std::string frame = ": keep-alive\n\n";
  co_return co_await write(std::move(frame));
}

asio::awaitable<bool> SocketEventStream::write(std::string frame) {
  if (failed_) co_return false;
  stream_.expires_after(kEventWriteTimeout);
  auto [ec, written] =
      co_await asio::async_write(stream_, asio::buffer(frame), asio::as_tuple(asio::use_awaitable));
  stream_.expires_never();
  if (ec) failed_ = true;
  co_return !failed_;
}

}  // namespace errand::web
