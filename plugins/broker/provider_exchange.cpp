#include "plugins/broker/provider_exchange.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <functional>

#include "common/tls_client.hpp"
#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/client_replies.hpp"
#include "plugins/broker/http_replies.hpp"
#include "plugins/broker/provider_call.hpp"
#include "plugins/broker/response_relay.hpp"
#include "plugins/broker/upstream_dial.hpp"
#include "plugins/broker/usage_headers.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;
using Outcome = sdk::ProviderReceipt::Outcome;
using namespace asio::experimental::awaitable_operators;

namespace {

// The session's headers less those that describe its hop, would redirect the call, or carry
// its stand-in; then the real key where the provider reads it.
HeaderList upstream_fields(const http::request_header<>& head, const ProviderSettings& provider,
                           bool session_sent_api_key) {
  HeaderList fields;
  for (const auto& field : head) {
    const std::string_view name = field.name_string();
    if (is_hop_by_hop(name, head) || is_override_header(name)) continue;
    switch (field.name()) {
      case http::field::host:
      case http::field::content_length:
      case http::field::authorization:
      case http::field::accept_encoding:
      case http::field::expect: continue;
      default: break;
    }
    if (boost::beast::iequals(name, "x-api-key")) continue;
    fields.emplace_back(std::string(name), std::string(field.value()));
  }
  place_key(fields, provider, session_sent_api_key);
  return fields;
}

template <class Upstream>
asio::awaitable<bool> relay_call(ProviderCall& call, Connection& connection,
                                 boost::beast::flat_buffer& buffer,
                                 http::request_parser<http::buffer_body>& parser,
                                 Upstream& upstream, bool session_sent_api_key) {
  auto& session = call.session;
  const auto& provider = call.provider;
  const auto& up = *provider.upstream;
  const auto& head = parser.get();
  HeaderList fields = upstream_fields(head, provider, session_sent_api_key);
  const Framing framing = finish_upstream_fields(parser, fields);
  const std::string target =
      call.upstream_path() + (call.has_query ? "?" + call.query : std::string());
  const std::string head_text = render_request_head(
      head.method_string(), target, host_field(up.host, up.port, up.tls ? 443 : 80), fields);
  if (auto [ec, n] = co_await asio::async_write(upstream, asio::buffer(head_text),
                                                asio::as_tuple(asio::use_awaitable));
      ec) {
    session.warn("{} answered 502: the connection failed while the request was sent ({})",
                 call.what(), ec.message());
    co_return co_await call.refuse(connection, Outcome::upstream_unreachable, 502,
                                   "errand broker: upstream unreachable: the connection to the "
                                   "provider failed while the request was sent",
                                   false);
  }
  const auto body =
      co_await forward_request_body(connection.client, buffer, parser, upstream, framing);
  call.bytes_up = body.bytes;
  if (body.client_failed) {
    session.info("{}: the session hung up while sending its request", call.what());
    call.record(Outcome::interrupted, 0);
    co_return false;
  }
  if (body.upstream_failed) {
    session.warn("{} answered 502: the provider failed while the request body was sent",
                 call.what());
    co_return co_await call.refuse(connection, Outcome::upstream_unreachable, 502,
                                   "errand broker: upstream unreachable: the provider's "
                                   "connection failed while the request body was sent",
                                   false);
  }
  RelayPolicy policy;
  // Shorter keys are not looked for (the broker said so at start-up).
  policy.key =
      provider.credential.size() >= kShortestScrubbedKey ? provider.credential : std::string();
  policy.max_body = session.settings().max_answer_bytes;
  policy.refuse_compressed = true;
  policy.head_request = head.method() == http::verb::head;
  policy.client_keep_alive = head.keep_alive();
  policy.client_http11 = head.version() >= 11;
  auto& pacer = session.core().pacer();
  const std::function<void(const http::response_header<>&)> on_head =
      [&](const http::response_header<>& answer) {
        const auto retry_after = answer.find(http::field::retry_after);
        pacer.note_answer(provider.name, answer.result_int(),
                          retry_after == answer.end() ? std::string_view{}
                                                      : std::string_view(retry_after->value()));
        if (auto usage = usage_from_headers(provider.name, answer, session.core().wall_now()))
          session.core().report_usage(*usage);
      };
  const auto relayed = co_await relay_response(upstream, connection.client, policy, on_head);
  call.bytes_down = relayed.bytes_down;
  switch (relayed.end) {
    case RelayEnd::completed:
      session.info("{} answered {}; {} bytes up, {} bytes down", call.what(), relayed.status,
                   call.bytes_up, call.bytes_down);
      call.record(Outcome::completed, static_cast<int>(relayed.status));
      co_return relayed.keep_alive;
    case RelayEnd::refused_compressed: {
      session.warn(
          "{}: a provider answered compressed ({}) though asked not to; refused with "
          "502, since bytes the broker cannot read could carry the key out",
          call.what(), relayed.detail);
      const std::string body_text = fmt::format(
          "errand broker: provider {} answered compressed ({}) though asked for an "
          "uncompressed answer; the broker cannot scrub it, so it is refused",
          provider.name, relayed.detail);
      co_return co_await call.refuse(connection, Outcome::refused, 502, body_text, false);
    }
    case RelayEnd::refused_too_large: {
      session.warn("{}: the answer declares {} bytes, over the {} byte limit; refused with 502",
                   call.what(), relayed.detail, policy.max_body);
      const std::string body_text = fmt::format(
          "errand broker: provider {}'s answer declares {} bytes, more than the {} "
          "bytes the broker relays",
          provider.name, relayed.detail, policy.max_body);
      co_return co_await call.refuse(connection, Outcome::refused, 502, body_text, false);
    }
    case RelayEnd::cut_too_large:
      session.warn("{}: the answer passed the {} byte limit while streaming and was cut",
                   call.what(), policy.max_body);
      call.record(Outcome::interrupted, static_cast<int>(relayed.status));
      co_return false;
    case RelayEnd::upstream_failed:
      if (!relayed.head_sent) {
        session.warn("{} answered 502: {}", call.what(), relayed.detail);
        const std::string body_text = "errand broker: upstream unreachable: " + relayed.detail;
        co_return co_await call.refuse(connection, Outcome::upstream_unreachable, 502, body_text,
                                       false);
      }
      session.warn("{}: {}", call.what(), relayed.detail);
      call.record(Outcome::interrupted, static_cast<int>(relayed.status));
      co_return false;
    case RelayEnd::client_gone:
      session.info("{}: the session hung up part way through the answer", call.what());
      call.record(Outcome::interrupted, static_cast<int>(relayed.status));
      co_return false;
  }
  co_return false;
}

}  // namespace

void place_key(HeaderList& fields, const ProviderSettings& provider, bool also_x_api_key) {
  // The real key goes only where the provider reads it, whatever else the session sent.
  switch (provider.placement) {
    case Placement::bearer:
      fields.emplace_back("Authorization", "Bearer " + provider.credential);
      break;
    case Placement::x_api_key: fields.emplace_back("x-api-key", provider.credential); break;
    case Placement::either:
      fields.emplace_back("Authorization", "Bearer " + provider.credential);
      if (also_x_api_key) fields.emplace_back("x-api-key", provider.credential);
      break;
  }
  // The broker must read the answer to scrub it.
  fields.emplace_back("Accept-Encoding", "identity");
}

DialRefusal provider_dial_refusal(const ProviderSettings& provider, const DialResult& dial) {
  const auto& up = *provider.upstream;
  const std::string where = fmt::format("{}:{}", up.host, up.port);
  switch (dial.failure) {
    case DialFailure::lookup_refused:
      return {503, fmt::format("answered 503 at the lookup of {}: {}", up.host, dial.detail),
              fmt::format("errand broker: {} was not looked up: {}", up.host, dial.detail)};
    case DialFailure::not_public:
      return {502,
              fmt::format("refused 502 at the address check: {} is not a public host ({})", where,
                          dial.detail),
              fmt::format("errand broker: provider {} is not called: not a public host: {}",
                          provider.name, dial.detail)};
    case DialFailure::lookup_failed:
      return {
          502,
          fmt::format("answered 502 at the lookup of {}: the name did not resolve ({})", up.host,
                      dial.detail),
          fmt::format("errand broker: the name did not resolve: {} ({})", up.host, dial.detail)};
    case DialFailure::lookup_timeout:
      return {504, fmt::format("answered 504 at the lookup of {}: {}", up.host, dial.detail),
              fmt::format("errand broker: the name did not resolve in time: {}", dial.detail)};
    case DialFailure::unreachable:
      return {502,
              fmt::format("answered 502 at the dial of {}: upstream unreachable ({})", where,
                          dial.detail),
              fmt::format("errand broker: upstream unreachable: {} ({})", where, dial.detail)};
    case DialFailure::none: break;
  }
  return {};
}

namespace {

asio::awaitable<bool> refuse_dial(ProviderCall& call, Connection& connection,
                                  const DialResult& dial) {
  const DialRefusal refusal = provider_dial_refusal(call.provider, dial);
  call.session.warn("{} {}", call.what(), refusal.log);
  // The address rule refusing the provider's host, or the session's lookup bound, is policy;
  // every other failure is the provider being out of reach.
  const Outcome outcome =
      dial.failure == DialFailure::not_public || dial.failure == DialFailure::lookup_refused
          ? Outcome::refused
          : Outcome::upstream_unreachable;
  co_return co_await call.refuse(connection, outcome, refusal.status, refusal.body, false);
}

}  // namespace

asio::awaitable<boost::system::error_code> tls_handshake(asio::ssl::stream<tcp::socket>& stream,
                                                         std::chrono::milliseconds deadline) {
  asio::steady_timer timer(co_await asio::this_coro::executor, deadline);
  auto handshake = co_await (
      stream.async_handshake(asio::ssl::stream_base::client, asio::as_tuple(asio::use_awaitable)) ||
      timer.async_wait(asio::as_tuple(asio::use_awaitable)));
  if (handshake.index() == 1) co_return asio::error::timed_out;
  co_return std::get<0>(std::get<0>(handshake));
}

asio::awaitable<bool> exchange_with_provider(ProviderCall& call, Connection& connection,
                                             boost::beast::flat_buffer& buffer,
                                             http::request_parser<http::buffer_body>& parser,
                                             bool session_sent_api_key) {
  auto& session = call.session;
  const auto& up = *call.provider.upstream;
  const auto& settings = session.settings();
  const UpstreamTarget target{up.host,
                              up.port,
                              up.host_is_literal,
                              {settings.allow_internal, session.core().host_addresses()},
                              session.id(),
                              LookupLane::provider};
  const DialDeadlines deadlines{settings.lookup_deadline, settings.dial_deadline};
  auto dial = co_await connect_upstream(session.core().resolver(), target, deadlines);
  if (dial.failure != DialFailure::none) co_return co_await refuse_dial(call, connection, dial);

  if (!up.tls) {
    auto& socket = *dial.socket;
    const UpstreamHook hook(connection, [&socket] {
      boost::system::error_code ignored;
      socket.close(ignored);
    });
    const bool again =
        co_await relay_call(call, connection, buffer, parser, socket, session_sent_api_key);
    co_return again&& parser.is_done();
  }

  asio::ssl::stream<tcp::socket> stream(std::move(*dial.socket), session.core().tls());
  const common::TlsPeer peer{up.host, std::to_string(up.port), up.host_is_literal};
  if (auto expected = common::expect_peer(stream.native_handle(), peer); !expected) {
    session.warn("{} answered 502: {}", call.what(), expected.error().message);
    const std::string body_text =
        "errand broker: upstream unreachable: " + expected.error().message;
    co_return co_await call.refuse(connection, Outcome::upstream_unreachable, 502, body_text,
                                   false);
  }
  const UpstreamHook hook(connection, [&stream] {
    boost::system::error_code ignored;
    stream.lowest_layer().close(ignored);
  });
  const auto tls_ec = co_await tls_handshake(stream, settings.dial_deadline);
  if (tls_ec) {
    const auto refusal =
        common::describe_tls_failure(stream.native_handle(), peer, tls_ec, "broker.caFile");
    session.warn("{} answered 502: {}", call.what(), refusal.sentence);
    const std::string body_text =
        fmt::format("errand broker: upstream unreachable: TLS with {}:{} failed: {}", up.host,
                    up.port, refusal.reason);
    co_return co_await call.refuse(connection, Outcome::upstream_unreachable, 502, body_text,
                                   false);
  }
  const bool again =
      co_await relay_call(call, connection, buffer, parser, stream, session_sent_api_key);
  co_return again&& parser.is_done();
}

}  // namespace errand::broker
