#pragma once

// One session's instance on the sandbox-process lifecycle (common/sandbox_process):
// errand-guest-init running through Incus's exec, whose stdio is the agent's, and the instance it
// runs in. Every end (the agent's own, a stop, the disk budget) waits for the exec's exit status
// and then stops the instance, which deletes it (it is ephemeral), so the instance is gone before
// anyone is told the session ended; only a stop whose every deadline passed without that status
// returns without it, and says so. A thread's kept instance (kept_instances.hpp) is stopped
// instead, and stays, unless its guest failed or the stop had to give up.

#include <memory>
#include <optional>
#include <string>

#include "common/sandbox_process/lifecycle.hpp"
#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "plugins/sandbox-incus/impl/kept_steps.hpp"
#include "plugins/sandbox-incus/impl/root_disk_watch.hpp"

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

class InstanceState final : public sandbox_process::Lifecycle {
 public:
  // client runs on strand, which every member of this object uses too. pid is the instance's
  // init on the host: the exec'd process has no host pid Incus reports.
  InstanceState(asio::strand<asio::any_io_executor> strand, std::shared_ptr<IncusClient> client,
                std::shared_ptr<spdlog::logger> log, std::string name,
                std::unique_ptr<ExecSession> exec, int pid, std::optional<common::DiskWatch> disk,
                std::chrono::milliseconds grace);

  // The instance is the thread's kept one: its end stops it and has housekeeping keep the
  // total. Call before start().
  void keep_for_thread(std::shared_ptr<KeptHousekeeping> housekeeping);

  const std::string& name() const { return name_; }
  // Watches the root disk until the sandbox ends or is being stopped, telling watch.notices when
  // it fills up (root_disk_watch.hpp); call once, after start().
  void watch_root_disk(RootDiskWatch watch);
  // Removes the instance without waiting.
  void abandon() noexcept override;

 private:
  asio::awaitable<sdk::ExitInfo> await_exit() override;
  // A guest errand-guest-init could not set up is not kept for the next session.
  void describe_end(sdk::ExitInfo& exit) override;
  asio::awaitable<sdk::Result<void>> clean_up() override;
  // SIGTERM, the grace, the control connection closed, a forced stop: each step under its
  // deadline (stop_deadlines.hpp), escalated and logged when it passes. The exit the stop
  // returns when incusd never gave an exit status; nothing when the lifecycle composes it.
  asio::awaitable<std::optional<sdk::ExitInfo>> stop_steps(
      std::chrono::milliseconds grace) override;
  // False when the send overran and the control connection was closed instead.
  asio::awaitable<bool> send_term();
  asio::awaitable<void> root_disk_rounds(RootDiskWatch watch);

  std::shared_ptr<IncusClient> client_;
  std::string name_;
  std::unique_ptr<ExecSession> exec_;
  std::shared_ptr<KeptHousekeeping> kept_;  // set for a thread's kept instance
  bool discard_ = false;                    // kept, but its guest failed
};

}  // namespace errand::incus
