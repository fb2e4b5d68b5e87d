#pragma once

// Sleeping that something else can cut short, on one strand. A waiter sleeps until a deadline;
// wake_all() ends every current sleep early, and the waiter then looks again at whatever it
// was waiting for. After close() every sleep returns at once, which is how stop() reaches the
// coroutines of a transport.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <list>

namespace errand::discord {

class WakeList {
 public:
  explicit WakeList(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}

  // Returns at the deadline, on wake_all(), or at once when closed.
  boost::asio::awaitable<void> sleep_until(std::chrono::steady_clock::time_point deadline) {
    if (closed_) co_return;
    boost::asio::steady_timer timer(executor_, deadline);
    auto it = waiters_.insert(waiters_.end(), &timer);
    boost::system::error_code ec;
    co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    waiters_.erase(it);
  }

  boost::asio::awaitable<void> sleep_for(std::chrono::steady_clock::duration d) {
    return sleep_until(std::chrono::steady_clock::now() + d);
  }

  boost::asio::awaitable<void> wait() {
    return sleep_until(std::chrono::steady_clock::time_point::max());
  }

  void wake_all() {
    for (auto* timer : waiters_) timer->cancel();
  }

  void close() {
    closed_ = true;
    wake_all();
  }

  bool closed() const noexcept { return closed_; }

 private:
  boost::asio::any_io_executor executor_;
  std::list<boost::asio::steady_timer*> waiters_;
  bool closed_ = false;
};

}  // namespace errand::discord
