#include "plugins/broker/provider/provider_connect.hpp"

#include "plugins/broker/broker_core.hpp"
#include "plugins/broker/provider/provider_exchange.hpp"

namespace errand::broker {
namespace asio = boost::asio;

ProviderRouteKey provider_route_key(const ProviderSettings& provider,
                                    const BrokerSettings& egress) {
  const auto& up = *provider.upstream;
  ProviderRouteKey key{provider.name, up.tls, up.host, up.port, {}};
  for (const auto& range : egress.allow_internal)
    key.admitted_under += (key.admitted_under.empty() ? "" : ", ") + range.text;
  return key;
}

asio::awaitable<ProviderConnection> connect_provider(BrokerCore& core,
                                                     const ProviderSettings& provider,
                                                     const BrokerSettings& egress,
                                                     const std::string& session_id,
                                                     const DialDeadlines& deadlines, bool reuse) {
  ProviderConnection out;
  const auto& up = *provider.upstream;
  const ProviderRouteKey key = provider_route_key(provider, egress);
  out.peer = common::TlsPeer{up.host, std::to_string(up.port), up.host_is_literal};
  if (reuse) {
    if (auto pooled = core.provider_pool().take(key)) {
      out.stream = std::move(pooled);
      out.reused = true;
      co_return out;
    }
  }
  // A new connection: its address is judged here, and only here.
  const UpstreamTarget target{up.host,
                              up.port,
                              up.host_is_literal,
                              {egress.allow_internal, core.host_addresses()},
                              session_id,
                              LookupLane::provider,
                              // Provider hosts are few and looked up for every person alike;
                              // their lane bounds each session, its owner being itself.
                              {}};
  out.dial = co_await connect_upstream(core.resolver(), target, deadlines);
  if (out.dial.failure != DialFailure::none) {
    out.failure = ProviderConnection::Failure::dial;
    co_return out;
  }
  auto stream = std::make_unique<ProviderStream>(std::move(*out.dial.socket), core.tls());
  out.dial.socket.reset();
  if (up.tls) {
    if (auto expected = common::expect_peer(stream->native_handle(), out.peer); !expected) {
      out.failure = ProviderConnection::Failure::peer_name;
      out.peer_name = expected.error().message;
      co_return out;
    }
    core.provider_pool().offer_tls_session(key, stream->native_handle());
    if (const auto ec = co_await tls_handshake(*stream, deadlines.dial)) {
      out.failure = ProviderConnection::Failure::tls;
      out.tls =
          common::describe_tls_failure(stream->native_handle(), out.peer, ec, "broker.caFile");
      co_return out;
    }
    core.provider_pool().keep_tls_session(key, stream->native_handle());
  }
  out.stream = std::move(stream);
  co_return out;
}

void finish_provider_connection(BrokerCore& core, const ProviderRouteKey& key,
                                std::unique_ptr<ProviderStream> stream, bool tls, bool reusable) {
  if (!stream) return;
  if (tls) core.provider_pool().keep_tls_session(key, stream->native_handle());
  if (reusable && stream->lowest_layer().is_open()) {
    core.provider_pool().give_back(key, std::move(stream));
    return;
  }
  boost::system::error_code ignored;
  stream->lowest_layer().close(ignored);
}

}  // namespace errand::broker
