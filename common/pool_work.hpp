#pragma once

// Blocking work (disk walks, cgroup removal, spawning) belongs on a worker thread, never on the
// host's executor. run_on_pool hands work to the pool and resumes the awaiting coroutine on its
// own executor with the result. The work must not throw.

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <type_traits>
#include <utility>

namespace errand::common {

template <class F>
auto run_on_pool(boost::asio::thread_pool& pool, F work) {
  using R = std::invoke_result_t<F&>;
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void(R)>(
      [&pool](auto handler, F work) {
        auto home = boost::asio::get_associated_executor(handler);
        boost::asio::post(pool, [handler = std::move(handler), work = std::move(work),
                                 home = std::move(home)]() mutable {
          R result = work();
          boost::asio::post(home,
                            [handler = std::move(handler), result = std::move(result)]() mutable {
                              std::move(handler)(std::move(result));
                            });
        });
      },
      boost::asio::use_awaitable, std::move(work));
}

}  // namespace errand::common
