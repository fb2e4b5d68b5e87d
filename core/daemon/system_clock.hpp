#pragma once

#include <errand/sdk/host_services.hpp>

namespace errand::daemon {

class SystemClock final : public sdk::Clock {
 public:
  std::chrono::system_clock::time_point now() const noexcept override {
    return std::chrono::system_clock::now();
  }
  std::chrono::steady_clock::time_point steady_now() const noexcept override {
    return std::chrono::steady_clock::now();
  }
};

}  // namespace errand::daemon
