#include "plugins/broker/provider/provider_exchange.hpp"

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
#include "plugins/broker/provider/provider_call.hpp"
#include "plugins/broker/provider/provider_connect.hpp"
#include "plugins/broker/provider/usage_headers.hpp"
#include "plugins/broker/relay/client_replies.hpp"
#include "plugins/broker/relay/http_replies.hpp"
#include "plugins/broker/relay/response_relay.hpp"
#include "plugins/broker/relay/upstream_dial.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;
using Outcome = sdk::ProviderReceipt::Outcome;
using namespace asio::experimental::awaitable_operators;

namespace {

// The most of a request kept to send again when a kept-alive connection turns out closed: a
// long conversation's request is a few hundred KiB; a larger one fails rather than being held.
constexpr std::size_t kRetriedRequestBytes = 4u << 20;

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

// The request as sent on the first connection, kept for a second one.
struct RequestSending {
  bool started = false;
  Framing framing = Framing::none;
  SentCopy copy;
  bool reused = false;     // the current connection came from the pool
  bool may_retry = false;  // a failure before any answer may be sent again on a new one
};

// How one attempt on one connection ended: with the call answered (again: whether the
// session's connection may carry another request; reusable: whether the upstream one may),
// or failed on a reused connection in a way that allows one more try on a new connection.
struct Attempt {
  bool retry = false;
  bool again = false;
  bool reusable = false;
};

template <class Upstream>
asio::awaitable<Attempt> relay_call(ProviderCall& call, Connection& connection,
                                    boost::beast::flat_buffer& buffer,
                                    http::request_parser<http::buffer_body>& parser,
                                    Upstream& upstream, bool session_sent_api_key,
                                    RequestSending& sending) {
  auto& session = call.session;
  const auto& provider = call.provider;
  const auto& up = *provider.upstream;
  const auto& head = parser.get();
  const auto retry_allowed = [&] { return sending.may_retry && sending.copy.whole; };
  std::string first_bytes;
  if (!sending.started) {
    HeaderList fields = upstream_fields(head, provider, session_sent_api_key);
    sending.framing =
        finish_upstream_fields(parser, fields, session.core().provider_pool().limits().enabled);
    const std::string target =
        call.upstream_path() + (call.has_query ? "?" + call.query : std::string());
    first_bytes = render_request_head(head.method_string(), target,
                                      host_field(up.host, up.port, up.tls ? 443 : 80), fields);
    sending.copy.add(first_bytes);
    sending.started = true;
  }
  // A second attempt sends again everything the first one meant to send, then goes on with
  // whatever of the body the session has not sent yet.
  const std::string& out_bytes = first_bytes.empty() ? sending.copy.bytes : first_bytes;
  if (auto [ec, n] = co_await asio::async_write(upstream, asio::buffer(out_bytes),
                                                asio::as_tuple(asio::use_awaitable));
      ec) {
    if (retry_allowed()) co_return Attempt{true};
    session.warn("{} answered 502: the connection failed while the request was sent ({})",
                 call.what(), ec.message());
    co_return Attempt{false, co_await call.refuse(connection, Outcome::upstream_unreachable, 502,
                                                  "errand broker: upstream unreachable: the "
                                                  "connection to the provider failed while the "
                                                  "request was sent",
                                                  false)};
  }
  const auto body = co_await forward_request_body(connection.client, buffer, parser, upstream,
                                                  sending.framing, &sending.copy);
  call.bytes_up += body.bytes;
  if (body.client_failed) {
    session.info("{}: the session hung up while sending its request", call.what());
    call.record(Outcome::interrupted, 0);
    co_return Attempt{};
  }
  if (body.upstream_failed) {
    if (retry_allowed()) co_return Attempt{true};
    session.warn("{} answered 502: the provider failed while the request body was sent",
                 call.what());
    co_return Attempt{false, co_await call.refuse(connection, Outcome::upstream_unreachable, 502,
                                                  "errand broker: upstream unreachable: the "
                                                  "provider's connection failed while the "
                                                  "request body was sent",
                                                  false)};
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
  // Not a byte of an answer: a server that closed the idle connection as the request went out.
  // Once a byte arrived the server had the request, and it is never sent twice.
  if (relayed.end == RelayEnd::upstream_failed && relayed.upstream_silent && retry_allowed())
    co_return Attempt{true};
  call.bytes_down = relayed.bytes_down;
  switch (relayed.end) {
    case RelayEnd::completed:
      session.info("{} answered {}; {} bytes up, {} bytes down{}", call.what(), relayed.status,
                   call.bytes_up, call.bytes_down,
                   sending.reused ? " on a kept-alive connection" : "");
      call.record(Outcome::completed, static_cast<int>(relayed.status));
      co_return Attempt{false, relayed.keep_alive, relayed.upstream_reusable};
    case RelayEnd::refused_compressed: {
      session.warn(
          "{}: a provider answered compressed ({}) though asked not to; refused with "
          "502, since bytes the broker cannot read could carry the key out",
          call.what(), relayed.detail);
      const std::string body_text = fmt::format(
          "errand broker: provider {} answered compressed ({}) though asked for an "
          "uncompressed answer; the broker cannot scrub it, so it is refused",
          provider.name, relayed.detail);
      co_return Attempt{false,
                        co_await call.refuse(connection, Outcome::refused, 502, body_text, false)};
    }
    case RelayEnd::refused_too_large: {
      session.warn("{}: the answer declares {} bytes, over the {} byte limit; refused with 502",
                   call.what(), relayed.detail, policy.max_body);
      const std::string body_text = fmt::format(
          "errand broker: provider {}'s answer declares {} bytes, more than the {} "
          "bytes the broker relays",
          provider.name, relayed.detail, policy.max_body);
      co_return Attempt{false,
                        co_await call.refuse(connection, Outcome::refused, 502, body_text, false)};
    }
    case RelayEnd::cut_too_large:
      session.warn("{}: the answer passed the {} byte limit while streaming and was cut",
                   call.what(), policy.max_body);
      call.record(Outcome::interrupted, static_cast<int>(relayed.status));
      co_return Attempt{};
    case RelayEnd::upstream_failed:
      if (!relayed.head_sent) {
        session.warn("{} answered 502: {}", call.what(), relayed.detail);
        const std::string body_text = "errand broker: upstream unreachable: " + relayed.detail;
        co_return Attempt{false, co_await call.refuse(connection, Outcome::upstream_unreachable,
                                                      502, body_text, false)};
      }
      session.warn("{}: {}", call.what(), relayed.detail);
      call.record(Outcome::interrupted, static_cast<int>(relayed.status));
      co_return Attempt{};
    case RelayEnd::client_gone:
      session.info("{}: the session hung up part way through the answer", call.what());
      call.record(Outcome::interrupted, static_cast<int>(relayed.status));
      co_return Attempt{};
  }
  co_return Attempt{};
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
  auto& core = session.core();
  const auto& up = *call.provider.upstream;
  const auto& settings = session.settings();
  const DialDeadlines deadlines{settings.lookup_deadline, settings.dial_deadline};
  const ProviderRouteKey key = provider_route_key(call.provider, settings);
  RequestSending sending;
  for (int attempt = 0;; ++attempt) {
    const bool reuse = attempt == 0;
    auto link =
        co_await connect_provider(core, call.provider, settings, session.id(), deadlines, reuse);
    switch (link.failure) {
      case ProviderConnection::Failure::none: break;
      case ProviderConnection::Failure::dial:
        co_return co_await refuse_dial(call, connection, link.dial);
      case ProviderConnection::Failure::peer_name: {
        session.warn("{} answered 502: {}", call.what(), link.peer_name);
        const std::string body_text = "errand broker: upstream unreachable: " + link.peer_name;
        co_return co_await call.refuse(connection, Outcome::upstream_unreachable, 502, body_text,
                                       false);
      }
      case ProviderConnection::Failure::tls: {
        session.warn("{} answered 502: {}", call.what(), link.tls.sentence);
        const std::string body_text =
            fmt::format("errand broker: upstream unreachable: TLS with {}:{} failed: {}", up.host,
                        up.port, link.tls.reason);
        co_return co_await call.refuse(connection, Outcome::upstream_unreachable, 502, body_text,
                                       false);
      }
    }
    sending.reused = link.reused;
    sending.may_retry = link.reused;
    // Only a reused connection can fail for having been closed while idle, so only its
    // request is copied for a second try.
    if (attempt == 0) sending.copy.cap = link.reused ? kRetriedRequestBytes : 0;
    Attempt ended;
    {
      auto& stream = *link.stream;
      const UpstreamHook hook(connection, [&stream] {
        boost::system::error_code ignored;
        stream.lowest_layer().close(ignored);
      });
      if (up.tls)
        ended = co_await relay_call(call, connection, buffer, parser, stream, session_sent_api_key,
                                    sending);
      else
        ended = co_await relay_call(call, connection, buffer, parser, stream.next_layer(),
                                    session_sent_api_key, sending);
    }
    // The session's request must have been read whole too, or its rest would be read as the
    // next request.
    finish_provider_connection(core, key, std::move(link.stream), up.tls,
                               ended.reusable && parser.is_done());
    if (ended.retry) {
      session.info(
          "{}: the kept-alive connection had been closed by the provider before it "
          "answered; sending the request again on a new connection",
          call.what());
      continue;
    }
    co_return ended.again&& parser.is_done();
  }
}

}  // namespace errand::broker
