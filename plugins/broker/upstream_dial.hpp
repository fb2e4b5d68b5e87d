#pragma once

// Resolving, judging and dialling an upstream: the one path every byte leaving the broker
// takes, for tunnels, plain http requests and provider calls alike.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "plugins/broker/resolver.hpp"

namespace errand::broker {

struct UpstreamTarget {
  std::string host;  // normalised
  std::uint16_t port = 0;
  bool host_is_literal = false;
  // sandbox.egress.allowInternal: lifts the address rule for a literal only, never for what
  // a name resolves to.
  bool allow_internal = false;
};

enum class DialFailure { none, lookup_failed, lookup_timeout, not_public, unreachable };

struct DialResult {
  std::optional<boost::asio::ip::tcp::socket> socket;
  boost::asio::ip::tcp::endpoint endpoint;
  DialFailure failure = DialFailure::none;
  // The resolver's reason, the categories refused, or each address's dial error.
  std::string detail;
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
