#pragma once

// The sdk::SandboxProcess a backend's launch() returns: the session's view of a Lifecycle. Dropping
// it while the sandbox still runs ends the sandbox (Lifecycle::abandon), since nothing may outlive
// its owner unsupervised.

#include <errand/sdk/sandbox_backend.hpp>
#include <memory>

#include "common/sandbox_process/lifecycle.hpp"

namespace errand::sandbox_process {

class ProcessHandle final : public sdk::SandboxProcess {
 public:
  explicit ProcessHandle(std::shared_ptr<Lifecycle> lifecycle) : lifecycle_(std::move(lifecycle)) {}
  ~ProcessHandle() override;
  int pid() const noexcept override { return lifecycle_->view().pid; }
  int stdin_fd() const noexcept override { return lifecycle_->view().stdin_fd; }
  int stdout_fd() const noexcept override { return lifecycle_->view().stdout_fd; }
  int stderr_fd() const noexcept override { return lifecycle_->view().stderr_fd; }
  boost::asio::awaitable<sdk::ExitInfo> wait() override;
  boost::asio::awaitable<sdk::ExitInfo> stop(std::chrono::milliseconds grace) override;

 private:
  std::shared_ptr<Lifecycle> lifecycle_;
};

}  // namespace errand::sandbox_process
