#pragma once

// A resolver whose answers a test writes: names mapped to addresses (loopback, for the
// internal-address refusals), names that fail with a reason, and names that never answer.

#include <boost/asio/ip/address.hpp>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "plugins/broker/relay/resolver.hpp"

namespace errand::broker::testing {

class FixedResolver final : public Resolver {
 public:
  void map(const std::string& name, std::vector<std::string> addresses) {
    std::lock_guard lock(mutex_);
    std::vector<boost::asio::ip::address> parsed;
    for (const auto& a : addresses) parsed.push_back(boost::asio::ip::make_address(a));
    mapped_[name] = std::move(parsed);
  }
  void hang(const std::string& name) {
    std::lock_guard lock(mutex_);
    hanging_.push_back(name);
  }
  // Answers the held lookups of host with a failure; returns how many there were.
  std::size_t answer_held(const std::string& host) {
    std::vector<std::function<void(Resolution)>> held;
    {
      std::lock_guard lock(mutex_);
      for (auto it = held_.begin(); it != held_.end();) {
        if (it->first != host) {
          ++it;
          continue;
        }
        held.push_back(std::move(it->second));
        it = held_.erase(it);
      }
    }
    for (auto& done : held) done({{}, "answered late by the test", false});
    return held.size();
  }
  std::vector<std::string> asked() const {
    std::lock_guard lock(mutex_);
    return asked_;
  }
  // The owner each lookup was asked for, in order (LookupRequest::owner).
  std::vector<std::string> owners_asked() const {
    std::lock_guard lock(mutex_);
    return owners_;
  }

  void resolve(const LookupRequest& request, std::function<void(Resolution)> done) override {
    const std::string& host = request.host;
    std::unique_lock lock(mutex_);
    asked_.push_back(host);
    owners_.push_back(request.owner);
    for (const auto& h : hanging_) {
      if (h == host) {
        held_.emplace_back(host, std::move(done));
        return;
      }
    }
    const auto it = mapped_.find(host);
    Resolution r;
    if (it != mapped_.end())
      r.addresses = it->second;
    else
      r.failure = "Name or service not known";
    lock.unlock();
    done(std::move(r));
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<boost::asio::ip::address>> mapped_;
  std::vector<std::string> hanging_;
  std::vector<std::pair<std::string, std::function<void(Resolution)>>> held_;
  std::vector<std::string> asked_;
  std::vector<std::string> owners_;
};

}  // namespace errand::broker::testing
