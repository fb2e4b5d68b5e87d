#include "plugins/broker/relay/client_replies.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <string>

#include "plugins/broker/broker_session.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace http = boost::beast::http;

asio::awaitable<bool> send_reply(Connection& connection, unsigned status, std::string_view body,
                                 bool keep_alive, const HeaderList& extra) {
  const std::string text = render_reply(status, body, keep_alive, extra);
  auto [ec, n] = co_await asio::async_write(connection.client, asio::buffer(text),
                                            asio::as_tuple(asio::use_awaitable));
  co_return keep_alive && !ec;
}

asio::awaitable<void> send_continue_if_expected(Connection& connection,
                                                const http::request_header<>& head) {
  if (head[http::field::expect] != "100-continue") co_return;
  static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  co_await asio::async_write(connection.client, asio::buffer(kContinue),
                             asio::as_tuple(asio::use_awaitable));
}

}  // namespace errand::broker
