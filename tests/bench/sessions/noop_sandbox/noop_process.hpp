#pragma once

// A plain child process standing where a sandbox would: its own process group, so a stop
// reaches everything it started, and a pidfd watched on the daemon's executor for its end.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <memory>
#include <optional>

#include "loopback_relay.hpp"

namespace errand::bench::noop {

struct ChildHandles {
  int pid = -1;
  int pidfd = -1;
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
};

class NoopProcess final : public sdk::SandboxProcess {
 public:
  NoopProcess(boost::asio::any_io_executor executor, ChildHandles child,
              std::shared_ptr<LoopbackRelay> relay);
  ~NoopProcess() override;

  int pid() const noexcept override { return pid_; }
  int stdin_fd() const noexcept override { return stdin_fd_; }
  int stdout_fd() const noexcept override { return stdout_fd_; }
  int stderr_fd() const noexcept override { return stderr_fd_; }
  boost::asio::awaitable<sdk::ExitInfo> wait() override;
  boost::asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace) override;

 private:
  // What the watcher and every waiter share, kept alive by whichever outlives the other.
  struct State {
    explicit State(boost::asio::any_io_executor executor, int pidfd);
    boost::asio::strand<boost::asio::any_io_executor> strand;
    boost::asio::posix::stream_descriptor pidfd;
    boost::asio::steady_timer ended;  // cancelled once, when the child has been reaped
    std::optional<sdk::ExitInfo> result;
    bool stop_requested = false;
    boost::asio::steady_timer* stop_deadline = nullptr;  // cancelled by the end, cutting the grace
  };
  static boost::asio::awaitable<void> watch(std::shared_ptr<State> state, int pid,
                                            std::shared_ptr<LoopbackRelay> relay);
  static boost::asio::awaitable<sdk::ExitInfo> wait_on_strand(std::shared_ptr<State> state);
  static boost::asio::awaitable<sdk::ExitInfo> stop_on_strand(std::shared_ptr<State> state, int pid,
                                                              std::chrono::milliseconds grace);

  std::shared_ptr<State> state_;
  int pid_, stdin_fd_, stdout_fd_, stderr_fd_;
};

}  // namespace errand::bench::noop
