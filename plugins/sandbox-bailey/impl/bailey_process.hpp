#pragma once

// One running bailey sandbox on the sandbox-process lifecycle (common/sandbox_process): the
// launcher's pidfd and report pipe watched on the sandbox's strand, and cleanup (cgroups, the
// session's run directory) done before anyone is told the sandbox has ended.

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/thread_pool.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "common/cgroups/cgroups.hpp"
#include "common/sandbox_process/lifecycle.hpp"
#include "plugins/sandbox-bailey/impl/launcher_spawn.hpp"

namespace errand::bailey {

namespace asio = boost::asio;

struct ProcessSetup {
  std::string session_id;
  LauncherHandles handles;
  cgroups::Session cgroup;
  std::filesystem::path run_dir;  // removed at cleanup
  std::chrono::milliseconds grace{10000};
  std::uint64_t memory_limit = 0;
  std::uint64_t pids_limit = 0;
};

class ProcessState final : public sandbox_process::Lifecycle {
 public:
  ProcessState(asio::any_io_executor executor, std::shared_ptr<asio::thread_pool> pool,
               std::shared_ptr<spdlog::logger> log, ProcessSetup setup,
               std::optional<common::DiskWatch> disk);
  ~ProcessState() override;

  // Completes once the agent has started, or with why the sandbox did not.
  asio::awaitable<sdk::Result<void>> started(std::chrono::milliseconds timeout);
  const ProcessSetup& setup() const { return setup_; }

  // Kills without waiting; cleanup still happens when the launcher is gone.
  void abandon() noexcept override;

 private:
  // Reads the launcher's reports until its pipe closes, then reaps it.
  asio::awaitable<sdk::ExitInfo> await_exit() override;
  // A limit that forced the stop, the kernel's OOM kills, a file past its size, refused forks.
  void describe_end(sdk::ExitInfo& exit) override;
  // The session's cgroups and run directory, then the lifeline.
  asio::awaitable<sdk::Result<void>> clean_up() override;
  // SIGTERM now, SIGKILL to everything left after grace; each later step under a deadline
  // (stop_deadlines.hpp), escalated and logged when it passes, and the whole stop bounded.
  asio::awaitable<std::optional<sdk::ExitInfo>> stop_steps(
      std::chrono::milliseconds grace) override;
  asio::awaitable<void> escalate_after(std::chrono::milliseconds grace);
  void kill_now() noexcept;
  void signal_launcher(int sig) noexcept;
  sdk::ExitInfo launcher_exit(int launcher_status) const;

  std::shared_ptr<asio::thread_pool> pool_;
  ProcessSetup setup_;
  asio::posix::stream_descriptor report_;
  asio::posix::stream_descriptor pidfd_;
  asio::steady_timer kill_timer_;

  bool started_ = false;
  std::optional<std::string> start_error_;
  std::optional<int> exit_code_, exit_signal_;
  std::string launcher_error_;
};

}  // namespace errand::bailey
