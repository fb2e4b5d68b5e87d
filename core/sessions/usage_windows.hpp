#pragma once

// Whether a provider's usage window is spent, judged once for every reader (the choice of
// where a new session starts, agent.fallback, and the notice a running session gets). errand
// knows windows per provider, not per model: the broker reports the limit headers of each answer
// per provider, and pauses a provider as a whole when it answers 429.
//
// Spent means one of:
// - the provider's newest report has a window (requests, tokens, input or output tokens, or a
//   utilisation window) with nothing left, remaining 0 or used_fraction >= 1, whose reset is
//   still ahead;
// - the provider is paused (it answered 429) until further away than limits.maxQueueWaitMs, so a
//   prompt queued now would expire before the pause ends.

#include <chrono>
#include <errand/sdk/egress_broker.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace errand::sessions {

struct SpentWindow {
  std::string provider;
  std::string why;  // "requests: 0 left", "5-hour: 100% used", "it answered 429 ..."
  std::chrono::system_clock::time_point until;
};

struct ProviderState {
  const sdk::ProviderUsage* usage = nullptr;  // its newest report; null: none yet
  std::optional<std::chrono::system_clock::time_point> paused_until;
};

// nullopt: not spent. When several windows are spent, the one that stays spent longest.
std::optional<SpentWindow> spent_window(std::string_view provider, const ProviderState& state,
                                        std::chrono::milliseconds max_queue_wait,
                                        std::chrono::system_clock::time_point now);

// "anthropic's usage window is spent until 14:05 UTC (requests: 0 left)"
std::string spent_clause(const SpentWindow& spent);

// Tells each session once per spent period: a session told that its provider is spent until U is
// told again only about a spent period judged at or after U.
class SpentNotices {
 public:
  // True when the session should be told about `spent` now (and records that it was).
  bool should_tell(const std::string& session_id, const SpentWindow& spent,
                   std::chrono::system_clock::time_point now);
  void forget(const std::string& session_id) { told_until_.erase(session_id); }

 private:
  std::map<std::string, std::chrono::system_clock::time_point> told_until_;
};

}  // namespace errand::sessions
