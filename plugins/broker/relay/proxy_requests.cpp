#include "plugins/broker/relay/proxy_requests.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <functional>

#include "plugins/broker/admission/host_names.hpp"
#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/relay/client_replies.hpp"
#include "plugins/broker/relay/http_replies.hpp"
#include "plugins/broker/relay/response_relay.hpp"
#include "plugins/broker/relay/tunnel.hpp"
#include "plugins/broker/relay/upstream_dial.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

bool has_body(const http::request_parser<http::buffer_body>& parser) {
  return !parser.is_done();
}

std::string authority(const ClassifiedRequest& request) {
  return authority_text(request.host, request.port);
}

const char* credential_problem(CredentialCheck check) {
  switch (check) {
    case CredentialCheck::missing: return "no proxy credential was sent";
    case CredentialCheck::closed: return "the session's broker has closed";
    case CredentialCheck::other_session: return "the credential belongs to another session";
    case CredentialCheck::unknown: return "the credential is not one this broker minted";
    case CredentialCheck::valid: return "";
  }
  return "";
}

// Why the host may be reached, for the log; nothing when it may not. A once grant used up but
// left in grants.json is logged here: the connection goes through all the same.
std::optional<std::string> admission(BrokerSession& session, const std::string& host) {
  const auto& settings = session.settings();
  if (const auto entry = settings.allow.match(host))
    return fmt::format("sandbox.egress.allow entry \"{}\"", *entry);
  for (const auto& [name, provider] : settings.providers) {
    if (provider.upstream && provider.upstream->host == host)
      return fmt::format("the host of provider {}", name);
  }
  const auto granted = session.grants().admit(host, session.core().wall_now());
  if (!granted.unsaved.empty())
    session.error("a once grant for {} was used but grants.json could not be rewritten: {}", host,
                  granted.unsaved);
  if (granted.grant) return fmt::format("a grant for {}", *granted.grant);
  return std::nullopt;
}

DialRefusal dial_refusal(const ClassifiedRequest& request, const DialResult& dial) {
  // Only an address a range could admit is worth the operator's attention; nothing lifts
  // link-local, metadata, fabric or the host's own addresses.
  const std::string_view internal_hint =
      dial.liftable ? " The operator can list its range in sandbox.egress.allowInternal." : "";
  switch (dial.failure) {
    case DialFailure::lookup_refused:
      return {503, fmt::format("answered 503 at the lookup: {}", dial.detail),
              fmt::format("errand broker: {} was not looked up: {}", request.host, dial.detail)};
    case DialFailure::not_public:
      return {403,
              fmt::format("refused 403 at the address check: not a public host ({})", dial.detail),
              fmt::format("errand broker: not a public host: {}. The broker never connects "
                          "a session to the host's own network, a private or reserved "
                          "range, or a cloud fabric address.{}",
                          dial.detail, internal_hint)};
    case DialFailure::lookup_failed:
      return {502,
              fmt::format("answered 502 at the lookup: the name did not resolve ({})", dial.detail),
              fmt::format("errand broker: the name did not resolve: {} ({}). The broker "
                          "resolves names with this host's resolver; its operator can check "
                          "/etc/resolv.conf.",
                          request.host, dial.detail)};
    case DialFailure::lookup_timeout:
      return {504, fmt::format("answered 504 at the lookup: {}", dial.detail),
              fmt::format("errand broker: the name did not resolve in time: {}", dial.detail)};
    case DialFailure::unreachable:
      return {502, fmt::format("answered 502 at the dial: upstream unreachable ({})", dial.detail),
              fmt::format("errand broker: upstream unreachable: {} ({})", authority(request),
                          dial.detail)};
    case DialFailure::none: break;
  }
  return {};
}

// Answers a dial failure; the log names the host and the phase that failed.
asio::awaitable<void> refuse_proxy_dial(BrokerSession& session, Connection& connection,
                                        const ClassifiedRequest& request, const DialResult& dial) {
  if (dial.failure == DialFailure::none) co_return;
  const DialRefusal refusal = dial_refusal(request, dial);
  // A host the address rule keeps out is policy doing its job; the rest are faults.
  if (dial.failure == DialFailure::not_public)
    session.info("{} {}", authority(request), refusal.log);
  else
    session.warn("{} {}", authority(request), refusal.log);
  co_await send_reply(connection, refusal.status, refusal.body, false);
}

asio::awaitable<bool> forward_plain(BrokerSession& session, Connection& connection,
                                    boost::beast::flat_buffer& buffer,
                                    http::request_parser<http::buffer_body>& parser,
                                    const ClassifiedRequest& request,
                                    asio::ip::tcp::socket& upstream) {
  const auto& head = parser.get();
  HeaderList fields;
  for (const auto& field : head) {
    const std::string_view name = field.name_string();
    if (is_hop_by_hop(name, head) || field.name() == http::field::host ||
        field.name() == http::field::content_length || field.name() == http::field::expect)
      continue;
    fields.emplace_back(std::string(name), std::string(field.value()));
  }
  const Framing framing = finish_upstream_fields(parser, fields);
  const std::string head_text =
      render_request_head(head.method_string(), request.origin_target,
                          host_field(request.host, request.port, 80), fields);
  auto [wec, written] = co_await asio::async_write(upstream, asio::buffer(head_text),
                                                   asio::as_tuple(asio::use_awaitable));
  if (wec) {
    session.warn("{} failed while sending the request upstream: {}", authority(request),
                 wec.message());
    co_return co_await send_reply(connection, 502,
                                  "errand broker: upstream unreachable: the connection failed "
                                  "while the request was sent",
                                  false);
  }
  co_await send_continue_if_expected(connection, head);
  const auto body =
      co_await forward_request_body(connection.client, buffer, parser, upstream, framing);
  if (body.client_failed) co_return false;
  RelayPolicy policy;
  policy.head_request = head.method() == http::verb::head;
  policy.client_keep_alive = false;
  policy.client_http11 = head.version() >= 11;
  // An ordinary host's answer is relayed as it is; only provider routes read its head.
  const std::function<void(const http::response_header<>&)> ignore_head =
      [](const http::response_header<>&) {};
  const auto relayed = co_await relay_response(upstream, connection.client, policy, ignore_head);
  if (relayed.end == RelayEnd::upstream_failed && !relayed.head_sent) {
    session.warn("{} {} answered 502: {}", std::string(head.method_string()), authority(request),
                 relayed.detail);
    const std::string body_text = "errand broker: upstream unreachable: " + relayed.detail;
    co_await send_reply(connection, 502, body_text, false);
    co_return false;
  }
  session.info("{} http://{}{} answered {}; {} bytes up, {} bytes down{}",
               std::string(head.method_string()), authority(request),
               session.core().scrub_secrets(request.origin_target), relayed.status, body.bytes,
               relayed.bytes_down,
               relayed.end == RelayEnd::completed ? "" : "; the answer was cut short");
  co_return false;
}

}  // namespace

std::string host_refusal_text(std::string_view host, bool suggestable) {
  if (!suggestable) {
    return fmt::format(
        "errand broker: this session tried to reach `{}`, which is not on the egress allowlist "
        "or granted. It is not one exact host name, so no grant can be suggested; the operator "
        "can add the hosts it needs to sandbox.egress.allow.",
        host);
  }
  return fmt::format(
      "errand broker: this session tried to reach `{0}`, which is not on the egress allowlist "
      "or granted. `!grant {0}` lets its next connection through, and `!grant {0} 10m` or "
      "`!grant {0} always` lets it through for longer.",
      host);
}

asio::awaitable<bool> handle_proxy_request(BrokerSession& session, Connection& connection,
                                           boost::beast::flat_buffer& buffer,
                                           http::request_parser<http::buffer_body>& parser,
                                           const ClassifiedRequest& request) {
  const bool is_connect = request.form == RequestForm::connect;
  const std::string what =
      is_connect ? "CONNECT " + authority(request)
                 : std::string(parser.get().method_string()) + " http://" + authority(request);
  const bool keep = !has_body(parser);
  const auto check = session.check_proxy_credential(request.proxy_password);
  if (check != CredentialCheck::valid) {
    session.info("{} refused 407: {}", what, credential_problem(check));
    // Built before the co_await: GCC 12 mishandles a braced list inside one.
    HeaderList challenge;
    challenge.emplace_back("Proxy-Authenticate", "Basic realm=\"errand\"");
    co_return co_await send_reply(
        connection, 407,
        "errand broker: this proxy needs the session's proxy credential, sent as "
        "Proxy-Authorization: Basic with any user name and the credential as the password. The "
        "session's HTTP_PROXY and HTTPS_PROXY variables carry it.",
        keep, challenge);
  }
  const auto& settings = session.settings();
  if (!settings.port_allowed(request.port)) {
    session.info("{} refused 403: port {} is not in sandbox.egressPorts ({})", what, request.port,
                 settings.ports_text());
    const std::string body_text = fmt::format(
        "errand broker: port {} is not one this session may open; sandbox.egressPorts "
        "allows {}. The operator can add the port there.",
        request.port, settings.ports_text());
    co_return co_await send_reply(connection, 403, body_text, keep);
  }
  const auto admitted = admission(session, request.host);
  if (!admitted) {
    const bool suggestable = is_single_exact_name(request.host);
    session.info("{} refused 403: the host is not on the egress allowlist or granted", what);
    if (session.refusal_limiter().should_notify(request.host, session.core().steady_now()))
      session.core().tell_host_refused(session.id(), request.host, request.port, suggestable);
    const std::string body_text = host_refusal_text(request.host, suggestable);
    co_return co_await send_reply(connection, 403, body_text, keep);
  }

  const UpstreamTarget target{request.host,
                              request.port,
                              request.host_is_literal,
                              {settings.allow_internal, session.core().host_addresses()},
                              session.id(),
                              LookupLane::tunnel,
                              session.owner()};
  const DialDeadlines deadlines{settings.lookup_deadline, settings.dial_deadline};
  auto dial = co_await connect_upstream(session.core().resolver(), target, deadlines);
  if (dial.failure != DialFailure::none) {
    co_await refuse_proxy_dial(session, connection, request, dial);
    co_return false;
  }
  auto& upstream = *dial.socket;
  const UpstreamHook hook(connection, [&upstream] {
    boost::system::error_code ignored;
    upstream.close(ignored);
  });

  auto address = dial.endpoint.address().to_string();
  if (!dial.lifted_by.empty())
    address += fmt::format(" (internal, listed by sandbox.egress.allowInternal entry \"{}\")",
                           dial.lifted_by);
  if (!is_connect) {
    session.info("{} allowed by {}; forwarding to {}", what, *admitted, address);
    co_return co_await forward_plain(session, connection, buffer, parser, request, upstream);
  }
  static constexpr std::string_view kEstablished = "HTTP/1.1 200 Connection established\r\n\r\n";
  auto [ec, n] = co_await asio::async_write(connection.client, asio::buffer(kEstablished),
                                            asio::as_tuple(asio::use_awaitable));
  if (ec) co_return false;
  session.info("{} allowed by {}; tunnel to {} open", what, *admitted, address);
  const auto leftover = buffer.data();
  const auto counts = co_await run_tunnel(connection.client, upstream, leftover);
  buffer.consume(buffer.size());
  session.info("tunnel to {} ({}) closed; {} bytes up, {} bytes down", authority(request), address,
               counts.up, counts.down);
  co_return false;
}

}  // namespace errand::broker
