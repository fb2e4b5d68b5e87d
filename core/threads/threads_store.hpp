#pragma once

// threads.db as the io thread uses it: each call runs on one worker thread and the awaiting
// coroutine resumes on its own executor, so a slow disk never stalls chat or sandboxes.

#include "core/threads/threads_db.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <type_traits>
#include <utility>

namespace errand::sessions {

class ThreadsStore {
 public:
  explicit ThreadsStore(std::unique_ptr<ThreadsDb> db) : db_(std::move(db)), worker_(1) {}
  ThreadsStore(const ThreadsStore&) = delete;
  ThreadsStore& operator=(const ThreadsStore&) = delete;
  // Finishes the calls already handed to the worker.
  ~ThreadsStore() { worker_.join(); }

  // Runs call(db) on the worker thread; the coroutine resumes on its executor with the result.
  // The result type must be movable and default constructible (every sdk::Result is).
  template <class Call>
  boost::asio::awaitable<std::invoke_result_t<Call, ThreadsDb&>> run(Call call) {
    using R = std::invoke_result_t<Call, ThreadsDb&>;
    auto initiate = [this, call = std::move(call)](auto handler) mutable {
      auto resume_on = boost::asio::get_associated_executor(handler);
      auto work = boost::asio::make_work_guard(resume_on);
      boost::asio::post(worker_, [this, call = std::move(call), handler = std::move(handler),
                                  work = std::move(work)]() mutable {
        R result = call(*db_);
        auto resume_on = work.get_executor();
        boost::asio::dispatch(resume_on,
                              [handler = std::move(handler), result = std::move(result)]() mutable {
                                std::move(handler)(std::move(result));
                              });
      });
    };
    co_return co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&, void(R)>(
        std::move(initiate), boost::asio::use_awaitable);
  }

  // For callers that are already off the io thread (the command line, start-up).
  ThreadsDb& blocking() noexcept { return *db_; }

 private:
  std::unique_ptr<ThreadsDb> db_;
  boost::asio::thread_pool worker_;
};

}  // namespace errand::sessions
