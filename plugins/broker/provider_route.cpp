#include "plugins/broker/provider_route.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/credentials.hpp"
#include "plugins/broker/http_replies.hpp"
#include "plugins/broker/key_scrubber.hpp"
#include "plugins/broker/path_rules.hpp"
#include "plugins/broker/response_relay.hpp"
#include "plugins/broker/upstream_dial.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;
using Outcome = sdk::ProviderReceipt::Outcome;
using namespace asio::experimental::awaitable_operators;

std::string standard_method(std::string_view method) {
  static constexpr std::string_view kStandard[] = {"GET",     "HEAD",    "POST",  "PUT",  "DELETE",
                                                   "CONNECT", "OPTIONS", "TRACE", "PATCH"};
  for (const auto m : kStandard) {
    if (method == m) return std::string(m);
  }
  return "OTHER";
}

namespace {

// What one call is, as far as it got; becomes its receipt.
struct Call {
  BrokerSession& session;
  const ProviderSettings& provider;
  std::string method;
  std::string rest_path;  // after the route, as sent
  std::string query;
  bool has_query = false;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::uint64_t bytes_up = 0;
  std::uint64_t bytes_down = 0;

  std::string upstream_path() const {
    const std::string base = provider.upstream ? provider.upstream->base_path : std::string();
    return base + (rest_path == "/" && !base.empty() ? std::string() : rest_path);
  }

  std::string receipt_path() const {
    std::string decoded = percent_decode_lenient(upstream_path());
    decoded = scrub_whole(decoded, provider.credential);
    decoded = scrub_whole(decoded, session.stand_in(provider.name));
    decoded = session.core().scrub_secrets(decoded);
    return receipt_path_text(decoded);
  }

  void record(Outcome outcome, int status, std::uint64_t unrecorded = 0) const {
    sdk::ProviderReceipt r;
    r.ended_at = session.core().wall_now();
    r.session_id = session.id();
    r.provider = provider.name;
    r.credential_name = provider.credential_name;
    r.host = provider.upstream ? provider.upstream->host : std::string();
    r.method = standard_method(method);
    r.path = receipt_path();
    r.query_length = query.size();
    r.status = status;
    r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    r.bytes_up = bytes_up;
    r.bytes_down = bytes_down;
    r.outcome = outcome;
    r.unrecorded_denials = unrecorded;
    session.core().record(r);
  }

  std::string what() const {
    return fmt::format("provider {}: {} {}", provider.name, method, receipt_path());
  }
};

asio::awaitable<bool> reply(Connection& connection, unsigned status, std::string_view body,
                            bool keep_alive) {
  const std::string text = render_reply(status, body, keep_alive);
  auto [ec, n] = co_await asio::async_write(connection.client, asio::buffer(text),
                                            asio::as_tuple(asio::use_awaitable));
  co_return keep_alive && !ec;
}

struct Presented {
  std::optional<std::string> bearer;
  std::optional<std::string> api_key;
};

Presented presented_values(const http::request_header<>& head) {
  Presented out;
  if (const auto it = head.find(http::field::authorization); it != head.end()) {
    if (const auto token = bearer_token(it->value())) out.bearer = std::string(*token);
  }
  if (const auto it = head.find("x-api-key"); it != head.end())
    out.api_key = std::string(it->value());
  return out;
}

struct StandInVerdict {
  CredentialCheck check = CredentialCheck::missing;
  bool wrong_header = false;
};

StandInVerdict check_placement(const BrokerSession& session, const ProviderSettings& provider,
                               const Presented& presented) {
  const auto judge = [&](const std::optional<std::string>& value) {
    return value ? session.check_stand_in(provider.name, *value) : CredentialCheck::missing;
  };
  switch (provider.placement) {
    case Placement::bearer: {
      const auto check = judge(presented.bearer);
      if (check == CredentialCheck::missing && presented.api_key) return {check, true};
      return {check, false};
    }
    case Placement::x_api_key: {
      const auto check = judge(presented.api_key);
      if (check == CredentialCheck::missing && presented.bearer) return {check, true};
      return {check, false};
    }
    case Placement::either: {
      const auto by_bearer = judge(presented.bearer);
      if (by_bearer == CredentialCheck::valid) return {by_bearer, false};
      const auto by_key = judge(presented.api_key);
      if (by_key == CredentialCheck::valid) return {by_key, false};
      return {presented.bearer ? by_bearer : by_key, false};
    }
  }
  return {};
}

std::string denial_reason(const StandInVerdict& verdict) {
  if (verdict.wrong_header) return "the stand-in arrived in the other header";
  switch (verdict.check) {
    case CredentialCheck::missing: return "no stand-in was sent";
    case CredentialCheck::closed: return "the session's broker has closed";
    case CredentialCheck::other_session: return "the stand-in belongs to another session";
    case CredentialCheck::unknown: return "the value sent is not this session's stand-in";
    case CredentialCheck::valid: return "";
  }
  return "";
}

HeaderList upstream_fields(const http::request_header<>& head, const ProviderSettings& provider,
                           bool session_sent_api_key,
                           const http::request_parser<http::buffer_body>& parser,
                           Framing& framing) {
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
    if (iequals(name, "x-api-key")) continue;
    fields.emplace_back(std::string(name), std::string(field.value()));
  }
  // The real key goes only where the provider reads it, whatever else the session sent.
  switch (provider.placement) {
    case Placement::bearer:
      fields.emplace_back("Authorization", "Bearer " + provider.credential);
      break;
    case Placement::x_api_key: fields.emplace_back("x-api-key", provider.credential); break;
    case Placement::either:
      fields.emplace_back("Authorization", "Bearer " + provider.credential);
      if (session_sent_api_key) fields.emplace_back("x-api-key", provider.credential);
      break;
  }
  // The broker must read the answer to scrub it.
  fields.emplace_back("Accept-Encoding", "identity");
  framing = Framing::none;
  if (const auto length = parser.content_length()) {
    if (*length > 0) framing = Framing::length;
    fields.emplace_back("Content-Length", std::to_string(*length));
  } else if (parser.chunked()) {
    framing = Framing::chunked;
    fields.emplace_back("Transfer-Encoding", "chunked");
  }
  fields.emplace_back("Connection", "close");
  return fields;
}

std::string host_header(const ProviderUpstream& up) {
  const std::string host = up.host.find(':') != std::string::npos ? "[" + up.host + "]" : up.host;
  const bool default_port = (up.tls && up.port == 443) || (!up.tls && up.port == 80);
  return default_port ? host : fmt::format("{}:{}", host, up.port);
}

template <class Upstream>
asio::awaitable<bool> exchange(Call& call, Connection& connection,
                               boost::beast::flat_buffer& buffer,
                               http::request_parser<http::buffer_body>& parser, Upstream& upstream,
                               bool session_sent_api_key) {
  auto& session = call.session;
  const auto& provider = call.provider;
  const auto& head = parser.get();
  Framing framing = Framing::none;
  const HeaderList fields = upstream_fields(head, provider, session_sent_api_key, parser, framing);
  const std::string target =
      call.upstream_path() + (call.has_query ? "?" + call.query : std::string());
  const std::string head_text =
      render_request_head(head.method_string(), target, host_header(*provider.upstream), fields);
  if (auto [ec, n] = co_await asio::async_write(upstream, asio::buffer(head_text),
                                                asio::as_tuple(asio::use_awaitable));
      ec) {
    session.warn("{} answered 502: the connection failed while the request was sent ({})",
                 call.what(), ec.message());
    call.record(Outcome::upstream_unreachable, 502);
    co_return co_await reply(connection, 502,
                             "errand broker: upstream unreachable: the connection to the provider "
                             "failed while the request was sent",
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
    call.record(Outcome::upstream_unreachable, 502);
    co_return co_await reply(connection, 502,
                             "errand broker: upstream unreachable: the provider's connection "
                             "failed while the request body was sent",
                             false);
  }
  RelayPolicy policy;
  policy.key = provider.credential.size() >= 8 ? provider.credential : std::string();
  policy.max_body = session.settings().max_answer_bytes;
  policy.refuse_compressed = true;
  policy.head_request = head.method() == http::verb::head;
  policy.client_keep_alive = head.keep_alive();
  policy.client_http11 = head.version() >= 11;
  auto& pacer = session.core().pacer();
  const std::function<void(unsigned, std::string_view)> on_status =
      [&](unsigned status, std::string_view retry_after) {
        pacer.note_answer(provider.name, status, retry_after);
      };
  const auto relayed = co_await relay_response(upstream, connection.client, policy, on_status);
  call.bytes_down = relayed.bytes_down;
  switch (relayed.end) {
    case RelayEnd::completed:
      session.info("{} answered {}; {} bytes up, {} bytes down", call.what(), relayed.status,
                   call.bytes_up, call.bytes_down);
      call.record(Outcome::completed, static_cast<int>(relayed.status));
      co_return relayed.keep_alive;
    case RelayEnd::refused_compressed:
      session.warn(
          "{}: a provider answered compressed ({}) though asked not to; refused with "
          "502, since bytes the broker cannot read could carry the key out",
          call.what(), relayed.detail);
      call.record(Outcome::refused, 502);
      {
        const std::string body_text = fmt::format(
            "errand broker: provider {} answered compressed ({}) though asked for an "
            "uncompressed answer; the broker cannot scrub it, so it is refused",
            provider.name, relayed.detail);
        co_return co_await reply(connection, 502, body_text, false);
      }
    case RelayEnd::refused_too_large:
      session.warn("{}: the answer declares {} bytes, over the {} byte limit; refused with 502",
                   call.what(), relayed.detail, policy.max_body);
      call.record(Outcome::refused, 502);
      {
        const std::string body_text = fmt::format(
            "errand broker: provider {}'s answer declares {} bytes, more than the {} "
            "bytes the broker relays",
            provider.name, relayed.detail, policy.max_body);
        co_return co_await reply(connection, 502, body_text, false);
      }
    case RelayEnd::cut_too_large:
      session.warn("{}: the answer passed the {} byte limit while streaming and was cut",
                   call.what(), policy.max_body);
      call.record(Outcome::interrupted, static_cast<int>(relayed.status));
      co_return false;
    case RelayEnd::upstream_failed:
      if (!relayed.head_sent) {
        session.warn("{} answered 502: {}", call.what(), relayed.detail);
        call.record(Outcome::upstream_unreachable, 502);
        {
          const std::string body_text = "errand broker: upstream unreachable: " + relayed.detail;
          co_return co_await reply(connection, 502, body_text, false);
        }
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

asio::awaitable<bool> refuse_dial(Call& call, Connection& connection, const DialResult& dial) {
  auto& session = call.session;
  const auto& up = *call.provider.upstream;
  const std::string where = fmt::format("{}:{}", up.host, up.port);
  switch (dial.failure) {
    case DialFailure::not_public:
      session.warn("{} refused 502 at the address check: {} is not a public host ({})", call.what(),
                   where, dial.detail);
      call.record(Outcome::refused, 502);
      {
        const std::string body_text =
            fmt::format("errand broker: provider {} is not called: not a public host: {}",
                        call.provider.name, dial.detail);
        co_return co_await reply(connection, 502, body_text, false);
      }
    case DialFailure::lookup_failed:
      session.warn("{} answered 502 at the lookup of {}: the name did not resolve ({})",
                   call.what(), up.host, dial.detail);
      call.record(Outcome::upstream_unreachable, 502);
      {
        const std::string body_text =
            fmt::format("errand broker: the name did not resolve: {} ({})", up.host, dial.detail);
        co_return co_await reply(connection, 502, body_text, false);
      }
    case DialFailure::lookup_timeout:
      session.warn("{} answered 504 at the lookup of {}: {}", call.what(), up.host, dial.detail);
      call.record(Outcome::upstream_unreachable, 504);
      {
        const std::string body_text =
            fmt::format("errand broker: the name did not resolve in time: {}", dial.detail);
        co_return co_await reply(connection, 504, body_text, false);
      }
    case DialFailure::unreachable:
      session.warn("{} answered 502 at the dial of {}: upstream unreachable ({})", call.what(),
                   where, dial.detail);
      call.record(Outcome::upstream_unreachable, 502);
      {
        const std::string body_text =
            fmt::format("errand broker: upstream unreachable: {} ({})", where, dial.detail);
        co_return co_await reply(connection, 502, body_text, false);
      }
    case DialFailure::none: break;
  }
  co_return false;
}

}  // namespace

asio::awaitable<bool> handle_provider_call(BrokerSession& session, Connection& connection,
                                           boost::beast::flat_buffer& buffer,
                                           http::request_parser<http::buffer_body>& parser,
                                           std::string route_target) {
  const auto& head = parser.get();
  const bool keep = parser.is_done() && head.keep_alive();
  const auto name_end = route_target.find_first_of("/?");
  const std::string name = route_target.substr(0, name_end);
  const auto found = session.settings().providers.find(name);
  if (found == session.settings().providers.end()) {
    std::string routes;
    for (const auto& [n, p] : session.settings().providers)
      routes += (routes.empty() ? "" : ", ") + n;
    session.info("{} /provider/{} refused 404: no such provider route",
                 std::string(head.method_string()), session.core().scrub_secrets(name));
    {
      const std::string body_text = fmt::format(
          "errand broker: there is no provider route named \"{}\"; this session's "
          "routes are: {}",
          session.core().scrub_secrets(name), routes.empty() ? "none" : routes);
      co_return co_await reply(connection, 404, body_text, keep);
    }
  }
  const ProviderSettings& provider = found->second;
  if (!session.live()) {
    session.info("{} /provider/{}: refused 401, the session's broker has closed",
                 std::string(head.method_string()), name);
    co_return co_await reply(connection, 401,
                             "errand broker: this session has stopped; its stand-ins are no "
                             "longer honoured",
                             keep);
  }

  Call call{session, provider, std::string(head.method_string()), {}, {}, false};
  const std::string rest_and_query =
      name_end == std::string::npos ? std::string() : route_target.substr(name_end);
  const auto split = split_target(rest_and_query);
  call.rest_path = split.path.empty() ? "/" : std::string(split.path);
  call.query = std::string(split.query);
  call.has_query = split.has_query;

  const Presented presented = presented_values(head);
  const auto verdict = check_placement(session, provider, presented);
  if (verdict.check != CredentialCheck::valid) {
    const auto decision = session.denial_limiter().on_denial(session.core().steady_now());
    session.warn("{} refused 401: {}{}", call.what(), denial_reason(verdict),
                 decision.record
                     ? (decision.unrecorded_before > 0
                            ? fmt::format("; {} denied calls went unrecorded since the last "
                                          "recorded one",
                                          decision.unrecorded_before)
                            : std::string())
                     : std::string("; not recorded (one denied receipt a minute)"));
    if (decision.record) call.record(Outcome::denied, 401, decision.unrecorded_before);
    {
      const std::string body_text =
          fmt::format("errand broker: provider {} takes this session's stand-in only in {}; {}",
                      provider.name, placement_header(provider.placement), denial_reason(verdict));
      co_return co_await reply(connection, 401, body_text, keep);
    }
  }

  if (const auto refusal = path_refusal(call.rest_path)) {
    session.warn("{} refused 400: {}", call.what(), *refusal);
    call.record(Outcome::refused, 400);
    {
      const std::string body_text = "errand broker: the path is refused: " + *refusal;
      co_return co_await reply(connection, 400, body_text, keep);
    }
  }

  const std::string entry = capability_entry(call.method, call.rest_path);
  if (!provider.capabilities) {
    session.info(
        "{} forwarded; provider {} has no capabilities list, and the entry naming this "
        "call is {}",
        call.what(), provider.name, entry);
  } else if (!provider.capabilities->permits(call.method, call.rest_path)) {
    if (provider.strict) {
      session.warn("{} refused 403: not in its capabilities ({})", call.what(),
                   provider.capabilities->describe());
      call.record(Outcome::refused, 403);
      {
        const std::string body_text = fmt::format(
            "errand broker: provider {} is limited to these calls: {}. {} {} is not "
            "one of them.",
            provider.name, provider.capabilities->describe(), call.method, call.rest_path);
        co_return co_await reply(connection, 403, body_text, keep);
      }
    }
    session.warn(
        "{} is not in its capabilities ({}) and was forwarded since strictCapabilities "
        "is false; the entry naming it is {}",
        call.what(), provider.capabilities->describe(), entry);
  }

  if (!provider.upstream) {
    session.warn("{} refused 502: provider {} is not called: {}", call.what(), provider.name,
                 provider.refusal);
    call.record(Outcome::refused, 502);
    {
      const std::string body_text = fmt::format("errand broker: provider {} is not called: {}",
                                                provider.name, provider.refusal);
      co_return co_await reply(connection, 502, body_text, keep);
    }
  }
  const auto& up = *provider.upstream;
  if (up.tls && !session.core().tls_problem().empty()) {
    session.error("{} refused 502: {}", call.what(), session.core().tls_problem());
    call.record(Outcome::refused, 502);
    {
      const std::string body_text =
          "errand broker: providers cannot be verified: " + session.core().tls_problem();
      co_return co_await reply(connection, 502, body_text, keep);
    }
  }

  if (head[http::field::expect] == "100-continue") {
    co_await asio::async_write(connection.client, asio::buffer("HTTP/1.1 100 Continue\r\n\r\n", 25),
                               asio::as_tuple(asio::use_awaitable));
  }
  auto slot = co_await session.core().pacer().acquire(provider.name, provider.max_concurrent);
  const auto& settings = session.settings();
  const UpstreamTarget target{up.host, up.port, up.host_is_literal, settings.allow_internal};
  const DialDeadlines deadlines{settings.lookup_deadline, settings.dial_deadline};
  auto dial = co_await connect_upstream(session.core().resolver(), target, deadlines);
  if (dial.failure != DialFailure::none) co_return co_await refuse_dial(call, connection, dial);

  const bool sent_api_key = presented.api_key.has_value();
  if (!up.tls) {
    auto& socket = *dial.socket;
    connection.close_upstream = [&socket] {
      boost::system::error_code ignored;
      socket.close(ignored);
    };
    const bool again = co_await exchange(call, connection, buffer, parser, socket, sent_api_key);
    connection.close_upstream = nullptr;
    co_return again&& parser.is_done();
  }

  asio::ssl::stream<tcp::socket> stream(std::move(*dial.socket), session.core().tls());
  if (!up.host_is_literal) SSL_set_tlsext_host_name(stream.native_handle(), up.host.c_str());
  stream.set_verify_callback(asio::ssl::host_name_verification(up.host));
  connection.close_upstream = [&stream] {
    boost::system::error_code ignored;
    stream.lowest_layer().close(ignored);
  };
  struct ClearUpstream {
    Connection& connection;
    ~ClearUpstream() { connection.close_upstream = nullptr; }
  } clear{connection};
  asio::steady_timer deadline(co_await asio::this_coro::executor, settings.dial_deadline);
  auto handshake = co_await (
      stream.async_handshake(asio::ssl::stream_base::client, asio::as_tuple(asio::use_awaitable)) ||
      deadline.async_wait(asio::as_tuple(asio::use_awaitable)));
  boost::system::error_code tls_ec;
  if (handshake.index() == 1) {
    tls_ec = asio::error::timed_out;
  } else {
    tls_ec = std::get<0>(std::get<0>(handshake));
  }
  if (tls_ec) {
    session.warn("{} answered 502 at the TLS handshake with {}:{}: {}", call.what(), up.host,
                 up.port, tls_ec.message());
    call.record(Outcome::upstream_unreachable, 502);
    {
      const std::string body_text = fmt::format(
          "errand broker: upstream unreachable: TLS with {}:{} failed ({}); the "
          "provider's certificate must verify against the system store or "
          "broker.caFile",
          up.host, up.port, tls_ec.message());
      co_return co_await reply(connection, 502, body_text, false);
    }
  }
  const bool again = co_await exchange(call, connection, buffer, parser, stream, sent_api_key);
  co_return again&& parser.is_done();
}

}  // namespace errand::broker
