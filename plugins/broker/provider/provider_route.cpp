#include "plugins/broker/provider/provider_route.hpp"

#include <fmt/format.h>
#include <optional>

#include "plugins/broker/admission/credentials.hpp"
#include "plugins/broker/admission/path_rules.hpp"
#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/provider/provider_call.hpp"
#include "plugins/broker/provider/provider_exchange.hpp"
#include "plugins/broker/relay/client_replies.hpp"

namespace errand::broker {
namespace http = boost::beast::http;
using Outcome = sdk::ProviderReceipt::Outcome;

namespace {

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

}  // namespace

boost::asio::awaitable<bool> handle_provider_call(BrokerSession& session, Connection& connection,
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
    const std::string body_text = fmt::format(
        "errand broker: there is no provider route named \"{}\"; this session's "
        "routes are: {}",
        session.core().scrub_secrets(name), routes.empty() ? "none" : routes);
    co_return co_await send_reply(connection, 404, body_text, keep);
  }
  const ProviderSettings& provider = found->second;
  if (!session.live()) {
    session.info("{} /provider/{}: refused 401, the session's broker has closed",
                 std::string(head.method_string()), name);
    co_return co_await send_reply(connection, 401,
                                  "errand broker: this session has stopped; its stand-ins are no "
                                  "longer honoured",
                                  keep);
  }

  ProviderCall call{session, provider, std::string(head.method_string()), {}, {}, false};
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
    // Denials are recorded at most once a minute, so this answer may leave no receipt.
    if (decision.record) call.record(Outcome::denied, 401, decision.unrecorded_before);
    const std::string body_text =
        fmt::format("errand broker: provider {} takes this session's stand-in only in {}; {}",
                    provider.name, placement_header(provider.placement), denial_reason(verdict));
    co_return co_await send_reply(connection, 401, body_text, keep);
  }

  if (const auto path = check_forwardable_path(call.rest_path); !path) {
    session.warn("{} refused 400: {}", call.what(), path.error().message);
    const std::string body_text = "errand broker: the path is refused: " + path.error().message;
    co_return co_await call.refuse(connection, Outcome::refused, 400, body_text, keep);
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
      const std::string body_text = fmt::format(
          "errand broker: provider {} is limited to these calls: {}. {} {} is not "
          "one of them.",
          provider.name, provider.capabilities->describe(), call.method, call.rest_path);
      co_return co_await call.refuse(connection, Outcome::refused, 403, body_text, keep);
    }
    session.warn(
        "{} is not in its capabilities ({}) and was forwarded since strictCapabilities "
        "is false; the entry naming it is {}",
        call.what(), provider.capabilities->describe(), entry);
  }

  if (!provider.upstream) {
    session.warn("{} refused 502: provider {} is not called: {}", call.what(), provider.name,
                 provider.refusal);
    const std::string body_text = fmt::format("errand broker: provider {} is not called: {}",
                                              provider.name, provider.refusal);
    co_return co_await call.refuse(connection, Outcome::refused, 502, body_text, keep);
  }
  if (provider.upstream->tls && !session.core().tls_problem().empty()) {
    session.error("{} refused 502: {}", call.what(), session.core().tls_problem());
    const std::string body_text =
        "errand broker: providers cannot be verified: " + session.core().tls_problem();
    co_return co_await call.refuse(connection, Outcome::refused, 502, body_text, keep);
  }

  co_await send_continue_if_expected(connection, head);
  // Held until the exchange ends, so the provider's maxConcurrentRequests counts whole calls.
  auto slot = co_await session.core().pacer().acquire(provider.name, provider.max_concurrent);
  const bool sent_api_key = presented.api_key.has_value();
  co_return co_await exchange_with_provider(call, connection, buffer, parser, sent_api_key);
}

}  // namespace errand::broker
