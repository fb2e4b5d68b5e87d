#pragma once

// A one-shot event on a strand: any number of coroutines wait for it, and firing it, before or
// after they started waiting, wakes them all. Every member must be used on the same strand.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace errand::common {

class StrandSignal {
 public:
  explicit StrandSignal(boost::asio::any_io_executor strand) : timer_(std::move(strand)) {
    timer_.expires_at(boost::asio::steady_timer::time_point::max());
  }

  void fire() {
    fired_ = true;
    timer_.cancel();
  }
  bool fired() const noexcept { return fired_; }

  boost::asio::awaitable<void> wait() {
    while (!fired_) {
      boost::system::error_code ec;
      co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
  }

 private:
  boost::asio::steady_timer timer_;
  bool fired_ = false;
};

}  // namespace errand::common
