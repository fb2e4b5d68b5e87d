#pragma once

// The broker's own lookups, run on threads because getaddrinfo blocks and cannot be
// interrupted. Two lanes (tunnels, provider hosts) with threads of their own; within a lane one
// session holds at most a few threads and a bounded number of lookups, so does one person across
// all of their sessions, and a lookup still queued when its caller gave up is never started.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "plugins/broker/relay/resolver.hpp"

namespace errand::broker {

struct LaneLimits {
  std::size_t threads = 8;
  // Lookups of one session running at once; the rest of its lookups wait while other
  // sessions' go ahead, so a session whose names never answer holds no more threads than this.
  std::size_t running_per_session = 4;
  // Lookups of one session queued or running (abandoned ones included, until getaddrinfo
  // returns); past it a lookup is refused at once.
  std::size_t in_flight_per_session = 16;
  // The same two bounds for one person's sessions together (LookupRequest::owner), so that
  // opening a second session does not win a person a second share of the threads.
  std::size_t running_per_owner = 4;
  std::size_t in_flight_per_owner = 32;
};

struct LookupPoolLimits {
  LaneLimits tunnel{8, 4, 16, 4, 32};
  LaneLimits provider{4, 2, 16, 2, 32};
};

// A blocking lookup: getaddrinfo in the daemon; tests pass one that stalls on chosen names.
using BlockingLookup = std::function<Resolution(const std::string& host)>;

class LookupPool final : public Resolver {
 public:
  explicit LookupPool(BlockingLookup lookup = system_lookup, LookupPoolLimits limits = {});
  // Idle threads are joined; a thread inside a lookup is detached and ends when the lookup
  // returns (its callback then finds nobody waiting). Queued lookups are dropped.
  ~LookupPool() override;
  LookupPool(const LookupPool&) = delete;
  LookupPool& operator=(const LookupPool&) = delete;

  void resolve(const LookupRequest& request, std::function<void(Resolution)> done) override;

 private:
  class Lane;
  std::shared_ptr<Lane> tunnel_;
  std::shared_ptr<Lane> provider_;
};

}  // namespace errand::broker
