#include "core/daemon/state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <string>

namespace errand::daemon {

namespace {

std::string read_pid(int fd) {
  char buffer[32] = {};
  const ssize_t n = pread(fd, buffer, sizeof buffer - 1, 0);
  if (n <= 0) return "";
  std::string pid(buffer, static_cast<std::size_t>(n));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

sdk::Result<StateLock> StateLock::acquire(const std::filesystem::path& state_dir) {
  const auto path = state_dir / "errand.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return sdk::make_error("cannot open " + path.string() + ": " + std::strerror(errno) +
                           "; check that stateDir exists and belongs to the daemon's account");
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string pid = read_pid(fd);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return sdk::make_error("another errand daemon" + (pid.empty() ? "" : " (pid " + pid + ")") +
                                 " already serves " + state_dir.string() + ": it holds " +
                                 path.string() +
                                 "; stop it first or give this one another stateDir",
                             sdk::Error::Kind::unavailable);
    }
    return sdk::make_error("cannot lock " + path.string() + ": " + std::strerror(err));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock itself is what matters; the pid inside is only a courtesy to the operator.
  }
  return StateLock(fd);
}

}  // namespace errand::daemon
