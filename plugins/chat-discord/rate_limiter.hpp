#pragma once

// Discord's REST rate limits, kept ahead of rather than discovered by failing. Each request
// belongs to a route (method and path with ids taken out) and a major parameter (the channel,
// guild or webhook it acts on). Discord's X-RateLimit-Bucket header says which routes share a
// limit; the state of a limit is kept per bucket and major parameter. A global limiter keeps
// the bot under 50 requests a second, and a 429 (per bucket or global) pauses exactly what it
// names for its fractional retry_after.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <errand/sdk/result.hpp>
#include <map>
#include <string>

#include "plugins/chat-discord/http_client.hpp"
#include "plugins/chat-discord/sliding_window.hpp"
#include "plugins/chat-discord/wake_list.hpp"

namespace errand::discord {

struct RouteKey {
  std::string route;           // "POST /channels/:id/messages"
  std::string major;           // "123" (channel), "app:token" (webhook), "" when none
  bool global_exempt = false;  // interaction callbacks are outside the global limit
};

// Takes ids and tokens out of a path relative to the API base ("/channels/1/messages/2").
RouteKey route_key_for(boost::beast::http::verb method, std::string_view path);

struct RateLimitTuning {
  std::size_t global_per_second = 50;
  // Added to every wait for a reset, for the time between Discord computing the header and
  // this process reading it.
  std::chrono::milliseconds reset_margin{20};
};

struct RateLimitStats {
  std::size_t requests = 0;
  std::size_t bucket_429 = 0;
  std::size_t global_429 = 0;
  std::chrono::steady_clock::duration waited{};  // total time spent waiting for a limit
};

class RateLimiter {
 public:
  RateLimiter(boost::asio::any_io_executor strand, RateLimitTuning tuning = {});

  // A permit to send one request now; give it back with complete().
  struct Permit {
    std::string state_key;
    RouteKey key;
    bool counted_globally = false;
  };

  // Waits until the route's bucket and the global limiter allow one more request. Fails only
  // when the limiter was closed.
  boost::asio::awaitable<sdk::Result<Permit>> acquire(const RouteKey& key);

  // Learns from the answer. Returns true when it was a 429, in which case the caller waits by
  // acquiring again.
  bool complete(const Permit& permit, const HttpReply& reply);

  // The request failed without an answer: the permit is returned unused.
  void abandon(const Permit& permit);

  void close();
  const RateLimitStats& stats() const noexcept { return stats_; }

 private:
  struct BucketState {
    int limit = -1;  // -1: not learned yet
    int remaining = 1;
    int in_flight = 0;
    std::chrono::steady_clock::time_point reset_at{};
  };

  std::string state_key_for(const RouteKey& key) const;
  void finish_global(const Permit& permit);

  RateLimitTuning tuning_;
  WakeList wake_;
  // Requests are entered when their answer arrives, which is never before Discord counted
  // them, so the window here always covers at least what Discord's does; requests still in
  // flight hold a place until then.
  SlidingWindow global_window_;
  std::size_t global_in_flight_ = 0;
  std::chrono::steady_clock::time_point global_until_{};
  std::map<std::string, std::string> route_bucket_;  // route -> Discord's bucket id
  std::map<std::string, BucketState> states_;
  RateLimitStats stats_;
};

}  // namespace errand::discord
