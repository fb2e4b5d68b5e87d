#pragma once

// At most `count` events in any span of `window`: the gateway's 120 sends a minute, REST's 50
// requests a second, identify pacing. Time is passed in so tests can drive it.

#include <chrono>
#include <cstddef>
#include <deque>

namespace errand::discord {

class SlidingWindow {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  SlidingWindow(std::size_t count, std::chrono::steady_clock::duration window)
      : count_(count == 0 ? 1 : count), window_(window) {}

  // When the next event may happen: now, or when the oldest event in the window leaves it.
  // reserved counts events under way that will be recorded when they finish; while they fill
  // the window there is no time to name yet, and time_point::max() says so.
  time_point next_allowed(time_point now, std::size_t reserved = 0) {
    forget_before(now);
    if (events_.size() + reserved < count_) return now;
    const std::size_t must_leave = events_.size() + reserved - count_;
    if (must_leave >= events_.size()) return time_point::max();
    return events_[must_leave] + window_;
  }

  void record(time_point now) {
    forget_before(now);
    events_.push_back(now);
  }

  void set_count(std::size_t count) { count_ = count == 0 ? 1 : count; }
  std::size_t count() const noexcept { return count_; }

 private:
  void forget_before(time_point now) {
    while (!events_.empty() && events_.front() + window_ <= now) events_.pop_front();
  }

  std::size_t count_;
  std::chrono::steady_clock::duration window_;
  std::deque<time_point> events_;
};

}  // namespace errand::discord
