#pragma once

// One running sandbox, as the daemon sees it: the launcher's pidfd and report pipe watched on
// a strand of the host's executor, the disk budget checked on the disk walker's thread at a
// pace set by how fast the session writes, and cleanup (cgroups, the session's run directory) done
// before anyone is told the sandbox has ended.

#include <spdlog/logger.h>
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/cgroups/cgroups.hpp"
#include "common/disk_budget/disk_watch.hpp"
#include "plugins/sandbox-bailey/impl/launcher_spawn.hpp"

namespace errand::bailey {

namespace asio = boost::asio;

struct ProcessSetup {
  std::string session_id;
  LauncherHandles handles;
  cgroups::Session cgroup;
  std::filesystem::path run_dir;  // removed at cleanup
  common::DiskBudget disk;
  common::DiskUsage disk_baseline;
  std::chrono::milliseconds grace{10000};
  std::uint64_t memory_limit = 0;
  std::uint64_t pids_limit = 0;
};

class ProcessState : public std::enable_shared_from_this<ProcessState> {
 public:
  ProcessState(asio::any_io_executor executor, std::shared_ptr<asio::thread_pool> pool,
               std::shared_ptr<common::DiskWalker> walker, std::shared_ptr<spdlog::logger> log,
               ProcessSetup setup);
  ~ProcessState();

  // Starts watching; call once, right after construction.
  void start();
  // Completes once the agent has started, or with why the sandbox did not.
  asio::awaitable<sdk::Result<void>> started(std::chrono::milliseconds timeout);
  asio::awaitable<sdk::ExitInfo> finished();
  // SIGTERM now, SIGKILL to everything left after grace; each later step under a deadline
  // (stop_deadlines.hpp), escalated and logged when it passes.
  asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace,
                                      sdk::LimitCause cause = sdk::LimitCause::none,
                                      std::string detail = {});
  // Kills without waiting; cleanup still happens when the launcher is gone. kill_now runs on
  // the strand; kill_soon may be called from anywhere.
  void kill_now() noexcept;
  void kill_soon();

  const ProcessSetup& setup() const { return setup_; }
  // True once the sandbox has ended and been cleaned up; safe from any thread.
  bool ended() const noexcept { return ended_.load(); }

 private:
  asio::awaitable<void> watch_launcher();
  asio::awaitable<void> watch_disk();
  asio::awaitable<void> escalate_after(std::chrono::milliseconds grace);
  asio::awaitable<bool> ended_within(std::chrono::milliseconds limit);
  void warn_overrun(std::string_view step, std::chrono::milliseconds deadline,
                    std::string_view escalation) const;
  void request_stop(std::chrono::milliseconds grace);
  void signal_launcher(int sig) noexcept;
  sdk::ExitInfo compose_exit(int launcher_status);
  void notify() { changed_.cancel(); }
  asio::awaitable<void> wait_change();

  asio::strand<asio::any_io_executor> strand_;
  std::shared_ptr<asio::thread_pool> pool_;
  std::shared_ptr<common::DiskWalker> walker_;
  std::shared_ptr<spdlog::logger> log_;
  ProcessSetup setup_;
  asio::posix::stream_descriptor report_;
  asio::posix::stream_descriptor pidfd_;
  asio::steady_timer changed_;
  asio::steady_timer disk_timer_;
  asio::steady_timer kill_timer_;

  bool started_ = false;
  std::optional<std::string> start_error_;
  std::optional<int> exit_code_, exit_signal_;
  std::string launcher_error_;
  bool stop_requested_ = false;
  sdk::LimitCause forced_cause_ = sdk::LimitCause::none;
  std::string forced_detail_;
  std::optional<sdk::ExitInfo> result_;
  std::atomic<bool> ended_{false};
};

class BaileyProcess final : public sdk::SandboxProcess {
 public:
  explicit BaileyProcess(std::shared_ptr<ProcessState> state) : state_(std::move(state)) {}
  ~BaileyProcess() override;
  int pid() const noexcept override { return state_->setup().handles.pid; }
  int stdin_fd() const noexcept override { return state_->setup().handles.stdin_fd; }
  int stdout_fd() const noexcept override { return state_->setup().handles.stdout_fd; }
  int stderr_fd() const noexcept override { return state_->setup().handles.stderr_fd; }
  asio::awaitable<sdk::ExitInfo> wait() override;
  asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace) override;

 private:
  std::shared_ptr<ProcessState> state_;
};

}  // namespace errand::bailey
