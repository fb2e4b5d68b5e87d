#pragma once

#include "common/unique_fd.hpp"

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>

namespace errand::daemon {

// stateDir/errand.lock, held with flock for the daemon's lifetime. The kernel drops the lock
// when the process dies however it dies, so a stale file never blocks a restart.
class StateLock {
 public:
  // The error's kind is unavailable when another daemon runs on this state directory (it may be
  // stopped first), failed when the lock file cannot be opened or locked at all.
  static sdk::Result<StateLock> acquire(const std::filesystem::path& state_dir);

  StateLock(StateLock&& other) noexcept = default;
  StateLock& operator=(StateLock&&) = delete;

 private:
  explicit StateLock(int fd) : fd_(fd) {}
  common::UniqueFd fd_;
};

}  // namespace errand::daemon
