#include "plugins/broker/delegate/delegate_route.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/read.hpp>

#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/delegate/delegate_call.hpp"
#include "plugins/broker/delegate/delegate_request.hpp"
#include "plugins/broker/relay/client_replies.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

asio::awaitable<bool> refuse(BrokerSession& session, Connection& connection, unsigned status,
                             std::string_view sentence) {
  session.info("POST /delegate refused {}: {}", status, sentence);
  co_return co_await send_reply(connection, status, sentence, false);
}

// Why the session's delegate questions cannot be put to its provider, or nothing when they can.
std::optional<std::string> unusable(const BrokerSettings& settings) {
  const auto& delegate = *settings.delegate;
  const auto found = settings.providers.find(delegate.provider);
  if (found == settings.providers.end())
    return fmt::format(
        "delegate questions go to agent.provider \"{}\", which is not a provider the broker "
        "holds a key for, so delegating is not available",
        delegate.provider);
  const auto& provider = found->second;
  if (!provider.upstream)
    return fmt::format("provider {} is not called: {}", provider.name, provider.refusal);
  if (provider.dialect == Dialect::unknown)
    return fmt::format(
        "provider {} has neither a kind nor a placement, so the broker cannot tell which API "
        "to ask it in; the operator can set agent.providers.{}.kind",
        provider.name, provider.name);
  return std::nullopt;
}

// Reads the whole body, whose length the head declared and read_delegate_head bounded.
asio::awaitable<std::optional<std::string>> read_artefact(
    Connection& connection, boost::beast::flat_buffer& buffer,
    http::request_parser<http::buffer_body>& parser, std::uint64_t length) {
  std::string artefact(length, '\0');
  std::size_t at = 0;
  while (!parser.is_done()) {
    parser.get().body().data = artefact.data() + at;
    parser.get().body().size = artefact.size() - at;
    auto [ec, ignored] = co_await http::async_read_some(connection.client, buffer, parser,
                                                        asio::as_tuple(asio::use_awaitable));
    if (ec == http::error::need_buffer) ec = {};
    at = artefact.size() - parser.get().body().size;
    if (ec) co_return std::nullopt;
  }
  artefact.resize(at);
  co_return artefact;
}

}  // namespace

asio::awaitable<bool> handle_delegate(BrokerSession& session, Connection& connection,
                                      boost::beast::flat_buffer& buffer,
                                      http::request_parser<http::buffer_body>& parser,
                                      const ClassifiedRequest& request) {
  const auto& head = parser.get();
  if (session.core().stopped())
    co_return co_await refuse(session, connection, 503,
                              "the broker is stopping, so no question can be delegated now");
  switch (session.check_proxy_credential(request.proxy_password)) {
    case CredentialCheck::valid: break;
    case CredentialCheck::closed:
      co_return co_await refuse(session, connection, 503,
                                "the session's broker has closed, so no question can be "
                                "delegated now");
    case CredentialCheck::missing:
      co_return co_await refuse(session, connection, 401,
                                "the request carries no proxy credential; the delegate command "
                                "sends the one in HTTP_PROXY as Proxy-Authorization: Basic");
    case CredentialCheck::other_session:
    case CredentialCheck::unknown:
      co_return co_await refuse(session, connection, 401,
                                "the proxy credential is not this session's; the delegate "
                                "command sends the one in HTTP_PROXY");
  }
  if (head.method() != http::verb::post)
    co_return co_await refuse(session, connection, 405,
                              "a delegate question is sent as POST /delegate");
  const auto& settings = session.settings();
  if (!settings.delegate)
    co_return co_await refuse(session, connection, 403,
                              "delegate is not enabled for this session: the operator has not "
                              "configured agent.delegate");
  if (const auto problem = unusable(settings))
    co_return co_await refuse(session, connection, 403, *problem);
  const auto content_length = parser.content_length();
  auto checked = read_delegate_head(
      head, content_length ? std::optional<std::uint64_t>(*content_length) : std::nullopt,
      parser.chunked());
  if (const auto* refusal = std::get_if<DelegateRefusal>(&checked))
    co_return co_await refuse(session, connection, refusal->status, refusal->sentence);
  auto& delegate_head = std::get<DelegateHead>(checked);

  co_await send_continue_if_expected(connection, head);
  auto artefact = co_await read_artefact(connection, buffer, parser, delegate_head.artefact_bytes);
  if (!artefact) {
    session.info("POST /delegate: the command hung up while sending its artefact");
    co_return false;
  }
  if (const auto refusal = check_artefact_text(*artefact))
    co_return co_await refuse(session, connection, refusal->status, refusal->sentence);
  if (const auto sentence = session.core().admit_delegate(session.id()); !sentence.empty())
    co_return co_await refuse(session, connection, 403, sentence);

  DelegateQuestion question{std::move(delegate_head.question), std::move(*artefact),
                            std::move(delegate_head.artefact_name)};
  co_await answer_delegate(session, connection, std::move(question));
  co_return false;
}

}  // namespace errand::broker
