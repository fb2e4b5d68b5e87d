#pragma once

// One session's container as the daemon sees it: the `podman start --attach` process, whose stdio
// is the agent's and whose pidfd is watched on a strand of the host's executor. Killing it would
// leave conmon holding the container, so stopping signals the container through podman (SIGTERM,
// then SIGKILL after the grace), each step under a deadline (stop_deadlines.hpp) past which it is
// escalated and logged; and every end (its own or a stop) is followed by
// `podman rm --force --ignore`, so the container is gone before anyone is told the session ended. A
// session with a disk budget is watched as bailey watches one (common/disk_budget/disk_watch.hpp)
// and stopped the same way once past it.

#include <spdlog/logger.h>
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/disk_budget/disk_watch.hpp"
#include "plugins/sandbox-podman/impl/podman_command.hpp"

namespace errand::podman {

namespace asio = boost::asio;

// Makes sure the container is gone: --rm removes it when the container ends normally, and this
// catches what a kill, a failed start or a daemon crash left behind. Blocking; false with what
// was left when it could not.
std::pair<bool, std::string> remove_container(const PodmanEnvironment& env,
                                              const std::string& name);

class ContainerState : public std::enable_shared_from_this<ContainerState> {
 public:
  ContainerState(asio::any_io_executor executor, std::shared_ptr<asio::thread_pool> pool,
                 std::shared_ptr<spdlog::logger> log, PodmanEnvironment env, std::string name,
                 RunningPodman running, std::optional<common::DiskWatch> disk,
                 std::chrono::milliseconds grace);
  ~ContainerState();

  // Starts watching; call once, right after construction.
  void start();
  asio::awaitable<sdk::ExitInfo> finished();
  // SIGTERM, SIGKILL after grace, and force past that (see stop_steps); cause and detail say why
  // when errand, not the core, stops it.
  asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace,
                                      sdk::LimitCause cause = sdk::LimitCause::none,
                                      std::string detail = {});
  // From a destructor: removes the container on the pool without waiting.
  void remove_soon() noexcept;

  const RunningPodman& running() const { return running_; }
  const std::string& name() const { return name_; }
  bool ended() const noexcept { return ended_.load(); }

 private:
  asio::awaitable<void> watch();
  asio::awaitable<void> watch_disk();
  asio::awaitable<void> wait_change();
  asio::awaitable<void> stop_steps(std::chrono::milliseconds grace);
  // False when the container was still being started at kStillStartingDeadline.
  asio::awaitable<bool> wait_until_started();
  // One podman command on the pool, under kPodmanCommandDeadline; an overrun or a failure is
  // logged, and false.
  asio::awaitable<bool> podman_step(std::vector<std::string> args);
  asio::awaitable<bool> ended_within(std::chrono::milliseconds limit);
  // podman's word for the container's state; empty when there is no such container.
  asio::awaitable<std::string> container_status();
  std::string who() const { return "session container " + name_; }

  asio::strand<asio::any_io_executor> strand_;
  std::shared_ptr<asio::thread_pool> pool_;
  std::shared_ptr<spdlog::logger> log_;
  PodmanEnvironment env_;
  std::string name_;
  RunningPodman running_;
  asio::posix::stream_descriptor pidfd_;
  asio::steady_timer changed_;
  std::optional<common::DiskWatch> disk_;
  asio::steady_timer disk_timer_;
  std::chrono::milliseconds grace_;
  bool exited_ = false;  // podman start has ended; the exit is being composed
  bool stop_requested_ = false;
  sdk::LimitCause forced_cause_ = sdk::LimitCause::none;
  std::string forced_detail_;
  std::optional<sdk::ExitInfo> result_;
  std::atomic<bool> ended_{false};
};

class PodmanProcess final : public sdk::SandboxProcess {
 public:
  explicit PodmanProcess(std::shared_ptr<ContainerState> state) : state_(std::move(state)) {}
  ~PodmanProcess() override;
  int pid() const noexcept override { return state_->running().pid; }
  int stdin_fd() const noexcept override { return state_->running().stdin_fd; }
  int stdout_fd() const noexcept override { return state_->running().stdout_fd; }
  int stderr_fd() const noexcept override { return state_->running().stderr_fd; }
  asio::awaitable<sdk::ExitInfo> wait() override { co_return co_await state_->finished(); }
  asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace) override {
    co_return co_await state_->stop(grace);
  }

 private:
  std::shared_ptr<ContainerState> state_;
};

}  // namespace errand::podman
