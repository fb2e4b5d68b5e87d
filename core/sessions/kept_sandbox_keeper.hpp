#pragma once

// Tells a sandbox backend that keeps a thread's sandbox between its sessions
// (sdk::KeptSandboxes) which threads still want one: every thread threads.db holds that is
// neither closed nor archived. It asks when the daemon has started, after each session's end
// (once that session's thread was archived or closed, if it was), after the chat service closed
// a thread, and every kInterval, which is how a thread `errand threads remove` took away loses
// its sandbox while the daemon runs. One round runs at a time; asks that come meanwhile make
// one more round after it. A threads.db that cannot be read skips the round: an empty list
// would remove every kept sandbox.

#include <spdlog/logger.h>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <errand/sdk/extensions/kept_sandboxes.hpp>
#include <memory>
#include <string>
#include <vector>

#include "core/threads/threads_db.hpp"
#include "core/threads/threads_store.hpp"

namespace errand::sessions {

// The threads whose sandboxes are worth keeping.
std::vector<std::string> threads_keeping_sandboxes(const std::vector<ThreadSummary>& threads);

class KeptSandboxKeeper : public std::enable_shared_from_this<KeptSandboxKeeper> {
 public:
  static constexpr std::chrono::seconds kInterval{60};

  // backend and threads must outlive the keeper's rounds (the daemon's host and store do).
  static std::shared_ptr<KeptSandboxKeeper> create(boost::asio::any_io_executor executor,
                                                   sdk::KeptSandboxes& backend,
                                                   ThreadsStore& threads,
                                                   std::shared_ptr<spdlog::logger> log);

  // A round now, then one every kInterval until stop().
  void start();
  // Another round as soon as the one running (if any) has finished. Safe from any thread.
  void ask_soon() noexcept;
  // No round after the one running. Safe from any thread.
  void stop() noexcept;

 private:
  KeptSandboxKeeper(boost::asio::any_io_executor executor, sdk::KeptSandboxes& backend,
                    ThreadsStore& threads, std::shared_ptr<spdlog::logger> log);
  boost::asio::awaitable<void> rounds();
  boost::asio::awaitable<void> round();

  boost::asio::strand<boost::asio::any_io_executor> strand_;
  sdk::KeptSandboxes& backend_;
  ThreadsStore& threads_;
  std::shared_ptr<spdlog::logger> log_;
  boost::asio::steady_timer timer_;
  bool again_ = false;
  bool stopped_ = false;
};

}  // namespace errand::sessions
