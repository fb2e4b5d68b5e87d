#pragma once

// A blocking lookup for LookupPool whose chosen names stall, as names whose nameserver never
// answers do, until the test lets them go; the rest resolve from a fixed map. Shared by
// pointer, so a pool thread detached inside a stalled lookup still finds it after the test.

#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "plugins/broker/relay/lookup_pool.hpp"

namespace errand::broker::testing {

class StallingLookup {
 public:
  void map(const std::string& name, const std::string& address) {
    std::lock_guard lock(mutex_);
    mapped_[name] = boost::asio::ip::make_address(address);
  }
  void stall(const std::string& name) {
    std::lock_guard lock(mutex_);
    stalled_.insert(name);
  }
  // Lets every stalled lookup, present and future, return a failure.
  void release() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;
    }
    changed_.notify_all();
  }
  std::size_t stalled_now() const {
    std::lock_guard lock(mutex_);
    return stalled_now_;
  }
  std::vector<std::string> started() const {
    std::lock_guard lock(mutex_);
    return started_;
  }
  bool wait_for_stalled(std::size_t count,
                        std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return stalled_now_ >= count; });
  }

  Resolution lookup(const std::string& host) {
    std::unique_lock lock(mutex_);
    started_.push_back(host);
    if (stalled_.contains(host)) {
      ++stalled_now_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return released_; });
      --stalled_now_;
      return {{}, "the test let a stalled lookup go", false};
    }
    Resolution out;
    if (const auto it = mapped_.find(host); it != mapped_.end())
      out.addresses.push_back(it->second);
    else
      out.failure = "Name or service not known";
    return out;
  }

  static BlockingLookup of(const std::shared_ptr<StallingLookup>& self) {
    return [self](const std::string& host) { return self->lookup(host); };
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, boost::asio::ip::address> mapped_;
  std::set<std::string> stalled_;
  std::vector<std::string> started_;
  std::size_t stalled_now_ = 0;
  bool released_ = false;
};

// Lets the stalled lookups go when a test ends, however it ends.
class ReleaseAtEnd {
 public:
  explicit ReleaseAtEnd(std::shared_ptr<StallingLookup> lookup) : lookup_(std::move(lookup)) {}
  ReleaseAtEnd(const ReleaseAtEnd&) = delete;
  ReleaseAtEnd& operator=(const ReleaseAtEnd&) = delete;
  ~ReleaseAtEnd() { lookup_->release(); }

 private:
  std::shared_ptr<StallingLookup> lookup_;
};

}  // namespace errand::broker::testing
