#pragma once

// A program run directly on the host with its stdio on pipes and an environment built from
// nothing: how the daemon asks the host's kage what it knows, and how tests run the fake agent
// without a sandbox. Started by common::spawn_piped, as every program the daemon starts: no
// code runs between fork and exec, the child holds none of the daemon's other descriptors, and
// it leads a process group of its own.

#include "core/agent/acp_types.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace errand::agent {

using EnvironmentList = std::vector<std::pair<std::string, std::string>>;

class HostProcess {
 public:
  // argv[0] is looked up on the daemon's own PATH when it has no slash. The child gets exactly
  // environment, and starts in working_dir when one is given.
  static sdk::Result<std::unique_ptr<HostProcess>> spawn(
      const std::vector<std::string>& argv, const EnvironmentList& environment,
      const std::filesystem::path& working_dir = {});
  ~HostProcess();  // kills and reaps a child still running; closes the pipes
  HostProcess(const HostProcess&) = delete;
  HostProcess& operator=(const HostProcess&) = delete;

  int pid() const noexcept { return pid_; }
  // The parent's ends of the three pipes; owned by this object.
  AgentStdio stdio() const noexcept { return stdio_; }
  void close_stdin();

  // The exit status once the child ended: its exit code, or 128 + the signal that killed it.
  boost::asio::awaitable<int> wait(boost::asio::any_io_executor executor);
  // SIGTERM, then SIGKILL when it has not ended within grace. Returns the exit status.
  boost::asio::awaitable<int> stop(boost::asio::any_io_executor executor,
                                   std::chrono::milliseconds grace);
  bool exited() const noexcept { return status_ >= 0; }

 private:
  HostProcess() = default;
  bool try_reap();

  int pid_ = -1;
  int pidfd_ = -1;
  int status_ = -1;
  AgentStdio stdio_;
};

// PATH, HOME and LANG for a program asked something on the host: PATH is the daemon's, HOME is
// the scratch directory given, so the program reads no operator's personal configuration.
EnvironmentList minimal_host_environment(const std::filesystem::path& home);

}  // namespace errand::agent
