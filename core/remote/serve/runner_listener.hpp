#pragma once

// The runner's unix socket: bound at a path, accepting callers and serving each with a
// RunnerConnection on the scheduler's strand.
//
// The socket file is mode 0666 on purpose: who may run jobs is decided per connection by the
// kernel's word on the peer (SO_PEERCRED) against runner.allowUsers, never by the file's mode,
// so every account can at least connect and be told why it is refused.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>

#include "core/remote/serve/job_scheduler.hpp"

namespace errand::remote {

class RunnerListener {
 public:
  // Binds path; a socket file left there by a runner that is gone is removed first, but one that
  // something still listens on is refused.
  static sdk::Result<std::unique_ptr<RunnerListener>> open(JobScheduler& scheduler,
                                                           const std::filesystem::path& path);
  RunnerListener(const RunnerListener&) = delete;
  RunnerListener& operator=(const RunnerListener&) = delete;

  // Accepts until close().
  void start();
  // Stops accepting (on the scheduler's strand) and removes the socket file.
  void close();

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  RunnerListener(JobScheduler& scheduler, std::filesystem::path path,
                 boost::asio::local::stream_protocol::acceptor acceptor)
      : scheduler_(scheduler), path_(std::move(path)), acceptor_(std::move(acceptor)) {}
  boost::asio::awaitable<void> accept_loop();

  JobScheduler& scheduler_;
  std::filesystem::path path_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
};

}  // namespace errand::remote
