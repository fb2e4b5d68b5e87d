#include "common/sandbox_process/process_handle.hpp"

namespace errand::sandbox_process {

ProcessHandle::~ProcessHandle() {
  if (!lifecycle_->ended()) lifecycle_->abandon();
}

boost::asio::awaitable<sdk::ExitInfo> ProcessHandle::wait() {
  return lifecycle_->finished();
}

boost::asio::awaitable<sdk::ExitInfo> ProcessHandle::stop(std::chrono::milliseconds grace) {
  return lifecycle_->stop(grace);
}

}  // namespace errand::sandbox_process
