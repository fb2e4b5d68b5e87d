#include "core/remote/call/terminal_writes.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace errand::remote {

std::string call_os_reason(int error) {
  return std::generic_category().message(error);
}

sdk::Result<void> write_whole(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written >= 0) {
      data.remove_prefix(static_cast<std::size_t>(written));
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd ready{.fd = fd, .events = POLLOUT, .revents = 0};
      if (::poll(&ready, 1, -1) < 0 && errno != EINTR)
        return sdk::make_error(call_os_reason(errno));
      continue;
    }
    return sdk::make_error(call_os_reason(errno));
  }
  return {};
}

void write_note(int fd, std::string_view line) {
  std::string text(line);
  text += '\n';
  (void)write_whole(fd, text);
}

}  // namespace errand::remote
