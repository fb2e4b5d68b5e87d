#pragma once

#include <chrono>
#include <errand/sdk/host_services.hpp>

namespace errand::test {

// A clock that moves only when the test moves it; both faces advance together.
class ManualClock final : public sdk::Clock {
 public:
  ManualClock()
      : wall_(std::chrono::sys_days{std::chrono::year{2025} / 3 / 14} + std::chrono::hours(9)),
        steady_(std::chrono::hours(1000)) {}

  std::chrono::system_clock::time_point now() const noexcept override { return wall_; }
  std::chrono::steady_clock::time_point steady_now() const noexcept override { return steady_; }

  void advance(std::chrono::milliseconds by) {
    wall_ += by;
    steady_ += by;
  }

 private:
  std::chrono::system_clock::time_point wall_;
  std::chrono::steady_clock::time_point steady_;
};

}  // namespace errand::test
