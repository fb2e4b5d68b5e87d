#pragma once

// Set by session/cancel on the reading thread, watched by the running prompt.

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace fake_agent {

class Cancellation {
 public:
  void cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
  }
  void reset() {
    std::lock_guard lock(mutex_);
    cancelled_ = false;
  }
  bool cancelled() {
    std::lock_guard lock(mutex_);
    return cancelled_;
  }
  // Sleeps up to duration; true when cancelled meanwhile.
  bool wait_for(std::chrono::milliseconds duration) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, duration, [&] { return cancelled_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool cancelled_ = false;
};

}  // namespace fake_agent
