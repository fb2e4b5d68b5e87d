#pragma once

// Rate limits that keep an agent retrying in a loop from becoming a flood: of messages to the
// thread about refused hosts, and of denied-call receipts.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace errand::broker {

class HostRefusalLimiter {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  // True when the core should be told of this refusal: at most once a minute for each host,
  // and for no more than three hosts a minute.
  bool should_notify(std::string_view host, TimePoint now);

 private:
  std::mutex mutex_;
  std::map<std::string, TimePoint, std::less<>> last_by_host_;
  std::deque<TimePoint> recent_;
};

class DenialLimiter {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  struct Decision {
    bool record = false;
    std::uint64_t unrecorded_before = 0;  // denials left unrecorded since the last recorded one
  };
  // At most one denied receipt a minute for the session.
  Decision on_denial(TimePoint now);

 private:
  std::mutex mutex_;
  bool any_ = false;
  TimePoint last_{};
  std::uint64_t unrecorded_ = 0;
};

}  // namespace errand::broker
