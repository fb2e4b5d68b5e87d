#include "core/remote/call/terminal_input.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>

#include "core/remote/call/terminal_writes.hpp"

namespace errand::remote {

InputRead read_input(int fd) {
  std::string data(kInputChunkBytes, '\0');
  const ssize_t got = ::read(fd, data.data(), data.size());
  if (got > 0) {
    data.resize(static_cast<std::size_t>(got));
    return InputRead{.kind = InputRead::Kind::data, .data = std::move(data), .reason = {}};
  }
  if (got == 0) return InputRead{.kind = InputRead::Kind::end, .data = {}, .reason = {}};
  if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) return InputRead{};
  return InputRead{.kind = InputRead::Kind::failed, .data = {}, .reason = call_os_reason(errno)};
}

std::optional<std::size_t> read_interrupts(int fd) {
  std::array<char, 64> bytes;
  const ssize_t got = ::read(fd, bytes.data(), bytes.size());
  if (got > 0) return static_cast<std::size_t>(got);
  if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
  return std::nullopt;
}

}  // namespace errand::remote
