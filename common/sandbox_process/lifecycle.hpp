#pragma once

// One running sandbox as the daemon sees it, whatever confines it: the state every backend keeps
// (started, exited, stop asked, a limit that forced the stop, the exit once cleaned up) and the
// steps every backend takes in the same order. The sandbox is watched on one strand; its disk
// budget, when it has one, is measured on the disk walker's thread and passing it stops the
// sandbox; an end is described, then cleaned up, and only then is anyone told. A backend supplies
// what differs: how it sees the end, how it describes it, how it stops and how it cleans up.
//
// Stopping is asked once; every caller of stop() waits for the same end. A backend whose steps
// all overran returns the exit it gave up with, and every later caller gets that too, so a
// sandbox the kernel cannot end never holds a stop for ever.

#include <spdlog/logger.h>
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/disk_budget/disk_watch.hpp"

namespace errand::sandbox_process {

namespace asio = boost::asio;

// What the session reads through sdk::SandboxProcess: a host pid and the agent's stdio. The
// descriptors stay the backend's, open as long as the lifecycle lives.
struct ProcessView {
  int pid = -1;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

class Lifecycle : public std::enable_shared_from_this<Lifecycle> {
 public:
  // who names the sandbox in log lines ("session 42", "session container errand-42"); every
  // member runs on strand.
  Lifecycle(asio::strand<asio::any_io_executor> strand, std::shared_ptr<spdlog::logger> log,
            std::string who, ProcessView view, std::optional<common::DiskWatch> disk,
            std::chrono::milliseconds grace);
  virtual ~Lifecycle();
  Lifecycle(const Lifecycle&) = delete;
  Lifecycle& operator=(const Lifecycle&) = delete;

  // Starts watching; call once, right after construction.
  void start();
  // Completes once the sandbox has ended and been cleaned up.
  asio::awaitable<sdk::ExitInfo> finished();
  // Asks the backend's stop steps once (cause and detail say why when errand, not the core,
  // stops it), then waits for the end or for the steps to give up.
  asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace,
                                      sdk::LimitCause cause = sdk::LimitCause::none,
                                      std::string detail = {});
  // True once the sandbox has ended and been cleaned up; safe from any thread.
  bool ended() const noexcept { return ended_.load(); }

  const ProcessView& view() const noexcept { return view_; }
  // The owner dropped a sandbox that may still run: nothing may outlive its owner
  // unsupervised, so it is ended without waiting. Called from a destructor, on any thread.
  virtual void abandon() noexcept = 0;

 protected:
  // Completes when the sandbox has exited, with its exit code or signal and detail; the
  // lifecycle then describes, cleans up and publishes it.
  virtual asio::awaitable<sdk::ExitInfo> await_exit() = 0;
  // Adds why the sandbox ended to what await_exit saw. By default: a limit that forced the
  // stop leads the detail, and a stop on request with nothing else to say is "stopped".
  virtual void describe_end(sdk::ExitInfo& exit);
  // Removes what the sandbox left (a cgroup, a container, an instance); the error says what
  // remains.
  virtual asio::awaitable<sdk::Result<void>> clean_up() = 0;
  // The first stop's steps, each under its own deadline. Nothing once the end is near (the
  // lifecycle then waits for it); an exit when every step overran and the stop gives up.
  virtual asio::awaitable<std::optional<sdk::ExitInfo>> stop_steps(
      std::chrono::milliseconds grace) = 0;

  // For the backend's steps, on the strand.
  const asio::strand<asio::any_io_executor>& strand() const { return strand_; }
  const std::shared_ptr<spdlog::logger>& log() const { return log_; }
  const std::string& who() const { return who_; }
  bool exited() const { return exited_; }
  bool has_result() const { return result_.has_value(); }
  bool stop_requested() const { return stop_requested_; }
  sdk::LimitCause forced_cause() const { return forced_cause_; }
  const std::string& forced_detail() const { return forced_detail_; }
  // Wakes every wait on this sandbox's state; call whenever what they read changes.
  void notify() { changed_.cancel(); }
  asio::awaitable<void> wait_change();
  // Waits until done() holds or limit has passed; true when it held. done is read on the strand
  // whenever notify() is called.
  asio::awaitable<bool> holds_within(std::chrono::milliseconds limit, std::function<bool()> done);
  // Waits until the sandbox has exited (the end is being described) or limit has passed.
  asio::awaitable<bool> exited_within(std::chrono::milliseconds limit);
  // Waits until the sandbox has ended and been cleaned up, or limit has passed.
  asio::awaitable<bool> ended_within(std::chrono::milliseconds limit);
  void warn_overrun(std::string_view step, std::chrono::milliseconds deadline,
                    std::string_view escalation) const;
  // The exit a stop gives up with: SIGKILL, the forced limit and its detail ahead of what.
  sdk::ExitInfo gave_up_exit(std::string what) const;

 private:
  asio::awaitable<void> watch();
  asio::awaitable<void> watch_disk();

  asio::strand<asio::any_io_executor> strand_;
  std::shared_ptr<spdlog::logger> log_;
  std::string who_;
  ProcessView view_;
  std::optional<common::DiskWatch> disk_;
  std::chrono::milliseconds grace_;
  asio::steady_timer changed_;
  asio::steady_timer disk_timer_;
  bool exited_ = false;  // the end is being described and cleaned up
  bool stop_requested_ = false;
  sdk::LimitCause forced_cause_ = sdk::LimitCause::none;
  std::string forced_detail_;
  std::optional<sdk::ExitInfo> gave_up_;
  std::optional<sdk::ExitInfo> result_;
  std::atomic<bool> ended_{false};
};

}  // namespace errand::sandbox_process
