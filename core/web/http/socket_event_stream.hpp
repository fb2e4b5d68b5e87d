#pragma once

// An EventStream over the connection it answers: each event is one Server-Sent Events frame
// written straight to the socket. Once a write fails (the page went away, or stop() closed
// the connection) every send answers false, so the writer stops.

#include "core/web/http/web_http.hpp"

#include <boost/beast/core/tcp_stream.hpp>
#include <string>

namespace errand::web {

class SocketEventStream final : public EventStream {
 public:
  explicit SocketEventStream(boost::beast::tcp_stream& stream) : stream_(stream) {}

  boost::asio::awaitable<bool> send(std::string_view event, std::string_view data) override;
  boost::asio::awaitable<bool> keep_alive() override;

 private:
  boost::asio::awaitable<bool> write(std::string frame);

  boost::beast::tcp_stream& stream_;
  bool failed_ = false;
};

// The frame send() writes: an event name and its data, each line of data in a "data:" line of
// its own, so a newline inside the data cannot end the event early or start another.
std::string event_frame(std::string_view event, std::string_view data);

}  // namespace errand::web
