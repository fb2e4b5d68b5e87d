#pragma once

// The last N message ids handed to the core, so a MESSAGE_CREATE the gateway replays after a
// resume is not delivered twice.

#include <cstddef>
#include <deque>
#include <string>
#include <unordered_set>

namespace errand::discord {

class DeliveredIds {
 public:
  explicit DeliveredIds(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // True when id is new (and now remembered); false when it was seen before.
  bool insert(const std::string& id) {
    if (!seen_.insert(id).second) return false;
    order_.push_back(id);
    if (order_.size() > capacity_) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
    return true;
  }

  std::size_t size() const noexcept { return order_.size(); }

 private:
  std::size_t capacity_;
  std::deque<std::string> order_;
  std::unordered_set<std::string> seen_;
};

}  // namespace errand::discord
