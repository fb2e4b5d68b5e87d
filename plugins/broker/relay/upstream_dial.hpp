#pragma once

// Resolving, judging and dialling an upstream: the one path every byte leaving the broker
// takes, for tunnels, plain http requests and provider calls alike.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "plugins/broker/admission/address_policy.hpp"
#include "plugins/broker/relay/resolver.hpp"

namespace errand::broker {

struct UpstreamTarget {
  std::string host;  // normalised
  std::uint16_t port = 0;
  bool host_is_literal = false;
  AddressPolicy policy;
  std::string session_id;  // whose lookup this is, for the resolver's per-session bound
  LookupLane lane = LookupLane::tunnel;
  std::string owner;  // and whose session, for its per-person bound (LookupRequest::owner)
};

enum class DialFailure {
  none,
  lookup_refused,  // the session has too many lookups in flight
  lookup_failed,
  lookup_timeout,
  not_public,
  unreachable
};

struct DialResult {
  std::optional<boost::asio::ip::tcp::socket> socket;
  boost::asio::ip::tcp::endpoint endpoint;
  DialFailure failure = DialFailure::none;
  // The resolver's reason, the categories refused, or each address's dial error.
  std::string detail;
  // For not_public: every address refused is one an allowInternal range could admit.
  bool liftable = false;
  // On success: the allowInternal range that admitted the internal address dialled, if any.
  std::string lifted_by;
};

// How a caller answers a failed dial: the status, the log line after the caller's name for the
// request, and the answer's text. Proxy requests and provider calls word these differently.
struct DialRefusal {
  unsigned status = 502;
  std::string log;
  std::string body;
};

struct DialDeadlines {
  std::chrono::milliseconds lookup{5000};
  std::chrono::milliseconds dial{10000};
};

// Callers pass named objects: GCC 12 mishandles class temporaries handed to a coroutine.
boost::asio::awaitable<DialResult> connect_upstream(Resolver& resolver,
                                                    const UpstreamTarget& target,
                                                    const DialDeadlines& deadlines);

}  // namespace errand::broker
