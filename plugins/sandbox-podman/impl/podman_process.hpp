#pragma once

// One session's container on the sandbox-process lifecycle (common/sandbox_process): the
// `podman start --attach` process, whose stdio is the agent's and whose pidfd says when it ends.
// Killing it would leave conmon holding the container, so stopping signals the container through
// podman (SIGTERM, then SIGKILL after the grace), each step under a deadline (stop_deadlines.hpp)
// past which it is escalated and logged; and every end is followed by
// `podman rm --force --ignore`, so the container is gone before anyone is told the session ended.

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/thread_pool.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/sandbox_process/lifecycle.hpp"
#include "plugins/sandbox-podman/impl/podman_command.hpp"

namespace errand::podman {

namespace asio = boost::asio;

// Makes sure the container is gone: --rm removes it when the container ends normally, and this
// catches what a kill, a failed start or a daemon crash left behind. Blocking; false with what
// was left when it could not.
std::pair<bool, std::string> remove_container(const PodmanEnvironment& env,
                                              const std::string& name);

class ContainerState final : public sandbox_process::Lifecycle {
 public:
  ContainerState(asio::any_io_executor executor, std::shared_ptr<asio::thread_pool> pool,
                 std::shared_ptr<spdlog::logger> log, PodmanEnvironment env, std::string name,
                 RunningPodman running, std::optional<common::DiskWatch> disk,
                 std::chrono::milliseconds grace);
  ~ContainerState() override;

  const std::string& name() const { return name_; }
  // Removes the container on the pool without waiting.
  void abandon() noexcept override;

 private:
  asio::awaitable<sdk::ExitInfo> await_exit() override;
  asio::awaitable<sdk::Result<void>> clean_up() override;
  // SIGTERM, SIGKILL after grace, and force past that; never gives up, since the last step
  // kills podman start itself.
  asio::awaitable<std::optional<sdk::ExitInfo>> stop_steps(
      std::chrono::milliseconds grace) override;
  // False when the container was still being started at kStillStartingDeadline.
  asio::awaitable<bool> wait_until_started();
  // One podman command on the pool, under kPodmanCommandDeadline; an overrun or a failure is
  // logged, and false.
  asio::awaitable<bool> podman_step(std::vector<std::string> args);
  // podman's word for the container's state; empty when there is no such container.
  asio::awaitable<std::string> container_status();

  std::shared_ptr<asio::thread_pool> pool_;
  PodmanEnvironment env_;
  std::string name_;
  RunningPodman running_;
  asio::posix::stream_descriptor pidfd_;
};

}  // namespace errand::podman
