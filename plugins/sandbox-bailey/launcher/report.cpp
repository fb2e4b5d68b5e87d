#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"
#include "plugins/sandbox-bailey/launcher/prepared.hpp"

namespace errand::bailey::launcher {

void report(const std::string& line) {
  const char* data = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(kReportFd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

void fail(const std::string& what) {
  report(format_error(what));
  ::_exit(1);
}

void fail_errno(const std::string& what) {
  fail(what + ": " + std::strerror(errno));
}

}  // namespace errand::bailey::launcher
