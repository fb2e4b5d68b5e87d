#include "common/stop_deadline.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>

namespace errand::common {

namespace asio = boost::asio;

std::string stop_overrun_warning(std::string_view who, std::string_view step,
                                 std::chrono::milliseconds deadline, std::string_view escalation) {
  std::string text(who);
  text += ": ";
  text += step;
  text += " did not finish within " + std::to_string(deadline.count()) + " ms; ";
  text += escalation;
  return text;
}

asio::awaitable<bool> wait_done_within(asio::steady_timer& changed, std::chrono::milliseconds limit,
                                       std::function<bool()> done) {
  if (done()) co_return true;
  // Shared with the deadline's handler, which may run after this coroutine has returned (its
  // timer expired while the last change was being handled).
  auto passed = std::make_shared<bool>(false);
  asio::steady_timer deadline(changed.get_executor(), limit);
  deadline.async_wait([passed, &changed](boost::system::error_code ec) {
    if (ec) return;
    *passed = true;
    changed.cancel();
  });
  while (!done() && !*passed) {
    boost::system::error_code ignored;
    co_await changed.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  deadline.cancel();
  co_return done();
}

}  // namespace errand::common
