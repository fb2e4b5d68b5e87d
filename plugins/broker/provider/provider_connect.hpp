#pragma once

// Getting a connection to a provider's base URL for one call: an idle one from the pool when
// the call may reuse one, otherwise a new one, resolved and judged by the address rule, dialled,
// and for https verified in a TLS handshake that offers the provider's last session to resume.
// Session calls (provider_exchange) and the broker's own calls (own_provider_call) both come
// here, so a connection is judged, verified and pooled one way.

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <string>

#include "common/tls_client.hpp"
#include "plugins/broker/provider/provider_pool.hpp"
#include "plugins/broker/relay/upstream_dial.hpp"
#include "plugins/broker/settings.hpp"

namespace errand::broker {

class BrokerCore;

struct ProviderConnection {
  enum class Failure { none, dial, peer_name, tls };
  std::unique_ptr<ProviderStream> stream;  // null when the connection failed
  // Taken from the pool: judged and verified when it was made, and possibly closed by the
  // server since, so a request that fails on it before any answer may be sent again.
  bool reused = false;
  Failure failure = Failure::none;
  DialResult dial;         // Failure::dial: why the lookup, the address rule or the dial failed
  std::string peer_name;   // Failure::peer_name: why the name to verify could not be set
  common::TlsRefusal tls;  // Failure::tls: why the handshake failed
  common::TlsPeer peer;    // whom the TLS handshake was with
};

// The pool's key for provider as the egress settings judge its addresses.
ProviderRouteKey provider_route_key(const ProviderSettings& provider, const BrokerSettings& egress);

// provider must have an upstream. With reuse false, always a new connection (the retry after a
// reused one failed). Callers pass named objects: GCC 12 mishandles class temporaries handed
// to a coroutine.
boost::asio::awaitable<ProviderConnection> connect_provider(
    BrokerCore& core, const ProviderSettings& provider, const BrokerSettings& egress,
    const std::string& session_id, const DialDeadlines& deadlines, bool reuse);

// After an exchange: the connection goes back to the pool when reusable, is closed otherwise,
// and an https connection's TLS session is kept for the provider's next new connection.
void finish_provider_connection(BrokerCore& core, const ProviderRouteKey& key,
                                std::unique_ptr<ProviderStream> stream, bool tls, bool reusable);

}  // namespace errand::broker
