#include "common/unique_fd.hpp"

#include <unistd.h>

namespace errand::common {

void UniqueFd::reset(int fd) noexcept {
  const int previous = std::exchange(fd_, fd);
  // Not retried on EINTR: on Linux the descriptor is released even then, and a retry could
  // close one another thread has just been given.
  if (previous >= 0 && previous != fd) ::close(previous);
}

}  // namespace errand::common
