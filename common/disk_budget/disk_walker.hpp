#pragma once

// The disk measurements of every session, on one thread of their own: never on the pool that
// prepares launches, so no walk delays a launch, and a slice at a time in turn, so that a
// session's tree of millions of files delays another session's baseline by a slice per turn,
// not by its whole walk. The thread reads with no capability to override file permissions
// (see disk_walker.cpp), so a tree is measured alike under a root daemon and an ordinary one.

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "common/disk_budget/disk_walk.hpp"

namespace errand::common {

class DiskWalker {
 public:
  static constexpr std::size_t kEntriesPerSlice = 2048;

  explicit DiskWalker(std::size_t entries_per_slice = kEntriesPerSlice);
  // Walks still queued are dropped unfinished; whoever awaited them is never resumed.
  ~DiskWalker();
  DiskWalker(const DiskWalker&) = delete;
  DiskWalker& operator=(const DiskWalker&) = delete;

  // Measures roots; the awaiting coroutine resumes on its own executor with the result.
  auto measure(std::vector<std::filesystem::path> roots) {
    using Signature = void(sdk::Result<DiskUsage>);
    return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, Signature>(
        [this](auto handler, std::vector<std::filesystem::path> roots) {
          auto home = boost::asio::get_associated_executor(handler);
          // std::function wants a copyable callable; the handler is not, so it is shared.
          auto shared = std::make_shared<decltype(handler)>(std::move(handler));
          submit(std::move(roots), [shared, home](sdk::Result<DiskUsage> result) {
            boost::asio::post(home, [shared, result = std::move(result)]() mutable {
              std::move (*shared)(std::move(result));
            });
          });
        },
        boost::asio::use_awaitable, std::move(roots));
  }

  // Queues a walk; done is called on the walker's thread when it ends.
  void submit(std::vector<std::filesystem::path> roots,
              std::function<void(sdk::Result<DiskUsage>)> done);

 private:
  struct Job {
    explicit Job(std::vector<std::filesystem::path> roots) : walk(std::move(roots)) {}
    DiskWalk walk;
    std::function<void(sdk::Result<DiskUsage>)> done;
  };
  // What the thread uses, owned by it too: a walker can be destroyed from a completion on its
  // own thread, which then cannot be joined and must not touch the walker again.
  struct Queue {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::unique_ptr<Job>> jobs;
    bool stopping = false;
  };
  static void run(const std::shared_ptr<Queue>& queue, std::size_t entries_per_slice);

  std::shared_ptr<Queue> queue_;
  std::thread thread_;
};

}  // namespace errand::common
