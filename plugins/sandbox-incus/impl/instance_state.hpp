#pragma once

// One session's instance as the daemon sees it: errand-guest-init running through Incus's exec,
// whose stdio is the agent's, and the instance it runs in. Every end (the agent's own, a stop,
// the disk budget) waits for the exec's exit status and then stops the instance, which deletes
// it (it is ephemeral), so the instance is gone before anyone is told the session ended; only a
// stop whose every deadline passed without that status returns without it, and says so.

#include <spdlog/logger.h>
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/disk_budget/disk_watch.hpp"
#include "plugins/sandbox-incus/client/incus_client.hpp"

namespace errand::incus {

namespace asio = boost::asio;

// Stops the instance with force (an ephemeral instance is then deleted), deletes it if it is
// still there, and says whether it is gone; what was left when it is not. deadline bounds each
// of its requests.
asio::awaitable<std::pair<bool, std::string>> remove_instance(
    const IncusClient& client, const std::string& name,
    std::chrono::milliseconds deadline = kDefaultDeadline);

// What errand-guest-init's exit status (as Incus reports the exec'd process) says about the end.
sdk::ExitInfo exit_from_return(int code);

class InstanceState : public std::enable_shared_from_this<InstanceState> {
 public:
  // client runs on strand, which every member of this object uses too.
  InstanceState(asio::strand<asio::any_io_executor> strand, std::shared_ptr<IncusClient> client,
                std::shared_ptr<spdlog::logger> log, std::string name,
                std::unique_ptr<ExecSession> exec, int pid, std::optional<common::DiskWatch> disk,
                std::chrono::milliseconds grace);

  // Starts watching; call once, right after construction.
  void start();
  asio::awaitable<sdk::ExitInfo> finished();
  asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace,
                                      sdk::LimitCause cause = sdk::LimitCause::none,
                                      std::string detail = {});
  // From a destructor: removes the instance without waiting.
  void remove_soon() noexcept;

  const ExecSession& exec() const { return *exec_; }
  int pid() const noexcept { return pid_; }
  const std::string& name() const { return name_; }
  bool ended() const noexcept { return ended_.load(); }

 private:
  asio::awaitable<void> watch();
  asio::awaitable<void> watch_disk();
  asio::awaitable<void> wait_change();
  // SIGTERM, the grace, the control connection closed, a forced stop: each step under its
  // deadline (stop_deadlines.hpp), escalated and logged when it passes. The exit the stop
  // returns when incusd never gave an exit status; nothing when watch() composes it.
  asio::awaitable<std::optional<sdk::ExitInfo>> stop_steps(std::chrono::milliseconds grace);
  // False when the send overran and the control connection was closed instead.
  asio::awaitable<bool> send_term();
  asio::awaitable<bool> exited_within(std::chrono::milliseconds limit);
  void warn_overrun(std::string_view step, std::chrono::milliseconds deadline,
                    std::string_view escalation) const;

  asio::strand<asio::any_io_executor> strand_;
  std::shared_ptr<IncusClient> client_;
  std::shared_ptr<spdlog::logger> log_;
  std::string name_;
  std::unique_ptr<ExecSession> exec_;
  int pid_;
  asio::steady_timer changed_;
  std::optional<common::DiskWatch> disk_;
  asio::steady_timer disk_timer_;
  std::chrono::milliseconds grace_;
  bool stop_requested_ = false;
  bool exited_ = false;
  sdk::LimitCause forced_cause_ = sdk::LimitCause::none;
  std::string forced_detail_;
  std::optional<sdk::ExitInfo> result_;
  std::atomic<bool> ended_{false};
};

class IncusProcess final : public sdk::SandboxProcess {
 public:
  explicit IncusProcess(std::shared_ptr<InstanceState> state) : state_(std::move(state)) {}
  ~IncusProcess() override;
  // The instance's init on the host (the exec'd process has no host pid Incus reports).
  int pid() const noexcept override { return state_->pid(); }
  int stdin_fd() const noexcept override { return state_->exec().stdin_fd(); }
  int stdout_fd() const noexcept override { return state_->exec().stdout_fd(); }
  int stderr_fd() const noexcept override { return state_->exec().stderr_fd(); }
  asio::awaitable<sdk::ExitInfo> wait() override { co_return co_await state_->finished(); }
  asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace) override {
    co_return co_await state_->stop(grace);
  }

 private:
  std::shared_ptr<InstanceState> state_;
};

}  // namespace errand::incus
