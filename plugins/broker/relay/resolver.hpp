#pragma once

// Name lookups the broker makes itself, on this host, with this host's resolver. The interface
// lets tests map names to loopback or hold a lookup forever.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace errand::broker {

struct Resolution {
  std::vector<boost::asio::ip::address> addresses;  // empty on failure
  std::string failure;                              // the resolver's own reason
  // Set when the lookup was never started because the session had too many in flight.
  bool refused = false;
};

// Provider hosts look up on a lane of their own, so a session's tunnel lookups can never hold
// up any session's provider calls.
enum class LookupLane { tunnel, provider };

struct LookupRequest {
  std::string host;
  std::string session_id;
  LookupLane lane = LookupLane::tunnel;
  // The caller gives up at this time; a lookup still queued then is never started.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // The person whose session asks (BrokerSessionSpec::owner_id), for the lane's per-person
  // bound; empty: the session is its own owner.
  std::string owner;
};

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Calls done at most once, on any thread; never when the lookup never ends. done may also be
  // destroyed uncalled, at any time, on any thread, even after the caller's io_context is gone.
  virtual void resolve(const LookupRequest& request, std::function<void(Resolution)> done) = 0;
};

// One blocking getaddrinfo for host, both families, stream sockets.
Resolution system_lookup(const std::string& host);

struct DeadlineResolution {
  Resolution resolution;
  bool timed_out = false;
};

// Resolves within request.deadline on the caller's executor; a lookup past it is abandoned.
// Nothing of the caller's io_context is reachable from the callback handed to the resolver, so
// a lookup that outlives the io_context is harmless.
boost::asio::awaitable<DeadlineResolution> resolve_within(Resolver& resolver,
                                                          LookupRequest request);

}  // namespace errand::broker
