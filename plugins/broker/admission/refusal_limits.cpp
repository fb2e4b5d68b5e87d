#include "plugins/broker/admission/refusal_limits.hpp"

namespace errand::broker {
namespace {
constexpr auto kWindow = std::chrono::minutes(1);
constexpr std::size_t kHostsPerWindow = 3;
}  // namespace

bool HostRefusalLimiter::should_notify(std::string_view host, TimePoint now) {
  std::lock_guard lock(mutex_);
  while (!recent_.empty() && now - recent_.front() >= kWindow) recent_.pop_front();
  const auto it = last_by_host_.find(host);
  if (it != last_by_host_.end() && now - it->second < kWindow) return false;
  if (recent_.size() >= kHostsPerWindow) return false;
  recent_.push_back(now);
  last_by_host_.insert_or_assign(std::string(host), now);
  return true;
}

DenialLimiter::Decision DenialLimiter::on_denial(TimePoint now) {
  std::lock_guard lock(mutex_);
  if (any_ && now - last_ < kWindow) {
    ++unrecorded_;
    return {false, 0};
  }
  Decision d{true, unrecorded_};
  any_ = true;
  last_ = now;
  unrecorded_ = 0;
  return d;
}

}  // namespace errand::broker
