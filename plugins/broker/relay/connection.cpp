#include "plugins/broker/relay/connection.hpp"

#include <fmt/format.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>

#include "common/broker_relay/broker_relay.hpp"
#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/delegate/delegate_route.hpp"
#include "plugins/broker/provider/provider_route.hpp"
#include "plugins/broker/relay/http_replies.hpp"
#include "plugins/broker/relay/proxy_requests.hpp"
#include "plugins/broker/relay/request_head.hpp"
#include "plugins/broker/relay/response_relay.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

constexpr std::string_view kProviderPrefix = "/provider/";

asio::awaitable<void> refuse_and_close(Connection& connection, unsigned status,
                                       std::string_view body) {
  const std::string reply = render_reply(status, body, false);
  co_await asio::async_write(connection.client, asio::buffer(reply),
                             asio::as_tuple(asio::use_awaitable));
}

// Cancels the connection's read when its head has not arrived by the deadline. The timer's
// handler holds the connection weakly and checks it still waits for the same head.
void arm_head_deadline(asio::steady_timer& timer, const std::shared_ptr<Connection>& connection,
                       std::chrono::milliseconds deadline) {
  timer.expires_after(deadline);
  timer.async_wait([weak = std::weak_ptr<Connection>(connection),
                    head = connection->heads_read](boost::system::error_code ec) {
    if (ec) return;
    auto alive = weak.lock();
    if (!alive || alive->heads_read != head) return;
    alive->head_timed_out = true;
    boost::system::error_code ignored;
    alive->client.cancel(ignored);
  });
}

// Returns whether the connection may carry another request.
asio::awaitable<bool> serve_request(BrokerSession& session,
                                    const std::shared_ptr<Connection>& shared_connection,
                                    boost::beast::flat_buffer& buffer) {
  Connection& connection = *shared_connection;
  http::request_parser<http::buffer_body> parser;
  parser.header_limit(kRequestHeadLimit);
  parser.body_limit(boost::none);
  const auto head_deadline = session.settings().head_deadline;
  asio::steady_timer deadline(session.strand());
  arm_head_deadline(deadline, shared_connection, head_deadline);
  auto [ec, ignored] = co_await http::async_read_header(connection.client, buffer, parser,
                                                        asio::as_tuple(asio::use_awaitable));
  ++connection.heads_read;
  deadline.cancel();
  if (connection.head_timed_out) {
    session.info("a connection sent no request head within {} ms; closed", head_deadline.count());
    co_await refuse_and_close(
        connection, 408,
        fmt::format("errand broker: no request head arrived within {} ms", head_deadline.count()));
    co_return false;
  }
  if (ec) {
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
        ec == asio::error::bad_descriptor)
      co_return false;
    session.info("a request head could not be read ({}); answered 400", ec.message());
    {
      const std::string body_text =
          "errand broker: the request head is malformed or larger than "
          "16 KiB: " +
          ec.message();
      co_await refuse_and_close(connection, 400, body_text);
    }
    co_return false;
  }
  auto classified = classify_request(parser.get());
  if (const auto* refusal = std::get_if<RequestRefusal>(&classified)) {
    session.info("{} {} refused 400: {}", std::string(parser.get().method_string()),
                 session.core().scrub_secrets(parser.get().target()), refusal->reason);
    {
      const std::string body_text = "errand broker: " + refusal->reason;
      co_await refuse_and_close(connection, 400, body_text);
    }
    co_return false;
  }
  auto& request = std::get<ClassifiedRequest>(classified);
  switch (request.form) {
    case RequestForm::connect:
    case RequestForm::absolute_http:
      co_return co_await handle_proxy_request(session, connection, buffer, parser, request);
    case RequestForm::origin: break;
  }
  if (request.origin_target.starts_with(kProviderPrefix)) {
    std::string route_target = request.origin_target.substr(kProviderPrefix.size());
    co_return co_await handle_provider_call(session, connection, buffer, parser,
                                            std::move(route_target));
  }
  if (request.origin_target == kDelegateTarget)
    co_return co_await handle_delegate(session, connection, buffer, parser, request);
  session.info("{} {} refused 400: not a proxy request or a provider route",
               std::string(parser.get().method_string()),
               session.core().scrub_secrets(request.origin_target));
  co_await refuse_and_close(
      connection, 400,
      "errand broker: this socket serves CONNECT host:port, absolute http:// requests and "
      "provider routes under /provider/<name>/ and POST /delegate; this request is none of "
      "them");
  co_return false;
}

// The connection was tracked when it was accepted, so the cap counts it from then on.
asio::awaitable<void> serve_connection(std::shared_ptr<BrokerSession> session,
                                       std::shared_ptr<Connection> connection) {
  try {
    // Room for a large read: Beast reads no more than the spare capacity (see response_relay).
    boost::beast::flat_buffer buffer;
    buffer.reserve(kRelayBuffer);
    while (co_await serve_request(*session, connection, buffer)) {
    }
  } catch (const std::exception& e) {
    session->error("a connection ended on an unexpected error: {}", e.what());
  }
  boost::system::error_code ignored;
  connection->client.close(ignored);
  session->untrack(connection);
}

asio::awaitable<void> refuse_over_cap(std::shared_ptr<Connection> connection) {
  co_await refuse_and_close(
      *connection, 503,
      fmt::format("errand broker: this session already has {} connections open, the most one "
                  "session may hold; close some and try again",
                  broker_relay::kMaxLinks));
  boost::system::error_code ignored;
  connection->client.close(ignored);
}

}  // namespace

asio::awaitable<void> accept_connections(std::shared_ptr<BrokerSession> session,
                                         asio::local::stream_protocol::acceptor& acceptor) {
  while (true) {
    auto [ec, socket] = co_await acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open() || !session->live())
        co_return;
      session->warn("accepting a connection failed: {}; trying again shortly", ec.message());
      asio::steady_timer pause(session->strand(), std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
      continue;
    }
    auto connection = std::make_shared<Connection>(std::move(socket));
    // The relay's cap, kept here too: bailey's agent reaches this socket without the relay.
    if (session->open_connections() >= broker_relay::kMaxLinks) {
      if (session->first_refusal_over_cap())
        session->warn(
            "{} connections are open, the most a session may hold; refusing new ones "
            "with 503 until some close",
            broker_relay::kMaxLinks);
      asio::co_spawn(session->strand(), refuse_over_cap(std::move(connection)), asio::detached);
      continue;
    }
    session->track(connection);
    asio::co_spawn(session->strand(), serve_connection(session, std::move(connection)),
                   asio::detached);
  }
}

}  // namespace errand::broker
