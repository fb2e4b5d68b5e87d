#include "core/sessions/usage_windows.hpp"

#include <fmt/format.h>
#include <cmath>
#include <ctime>

namespace errand::sessions {

namespace {

using std::chrono::system_clock;

std::string hour_minute(system_clock::time_point at) {
  const std::time_t t = system_clock::to_time_t(std::chrono::ceil<std::chrono::seconds>(at));
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  return fmt::format("{:02}:{:02} UTC", tm.tm_hour, tm.tm_min);
}

std::optional<std::string> nothing_left(const sdk::UsageWindow& window) {
  if (window.remaining && *window.remaining == 0) return window.name + ": 0 left";
  if (window.used_fraction && *window.used_fraction >= 1.0)
    return fmt::format("{}: {}% used", window.name, std::lround(*window.used_fraction * 100));
  return std::nullopt;
}

void keep_longest(std::optional<SpentWindow>& kept, SpentWindow candidate) {
  if (!kept || candidate.until > kept->until) kept = std::move(candidate);
}

}  // namespace

std::optional<SpentWindow> spent_window(std::string_view provider, const ProviderState& state,
                                        std::chrono::milliseconds max_queue_wait,
                                        system_clock::time_point now) {
  std::optional<SpentWindow> spent;
  if (state.usage != nullptr) {
    for (const auto& window : state.usage->windows) {
      // A window without a reset ahead says nothing about now: it may have refilled already.
      if (!window.resets_at || *window.resets_at <= now) continue;
      if (auto why = nothing_left(window))
        keep_longest(spent, {std::string(provider), std::move(*why), *window.resets_at});
    }
  }
  if (state.paused_until && *state.paused_until > now + max_queue_wait)
    keep_longest(spent, {std::string(provider),
                         "it answered 429, and a prompt would wait longer than "
                         "limits.maxQueueWaitMs",
                         *state.paused_until});
  return spent;
}

std::string spent_clause(const SpentWindow& spent) {
  return fmt::format("{}'s usage window is spent until {} ({})", spent.provider,
                     hour_minute(spent.until), spent.why);
}

bool SpentNotices::should_tell(const std::string& session_id, const SpentWindow& spent,
                               system_clock::time_point now) {
  auto& told = told_until_[session_id];
  if (now < told) return false;
  told = spent.until;
  return true;
}

}  // namespace errand::sessions
