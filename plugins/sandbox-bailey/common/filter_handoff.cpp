#include "plugins/sandbox-bailey/common/filter_handoff.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace errand::bailey {

namespace {

constexpr unsigned kAllSeals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;

sdk::Result<void> write_all(int fd, const void* data, std::size_t size) {
  const auto* at = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sdk::make_error(std::string("writing the filter: ") + std::strerror(errno));
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace

sdk::Result<int> seal_compiled_filter(const seccomp::CompiledFilter& filter) {
  const int fd = ::memfd_create("errand-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return sdk::make_error(std::string("memfd_create: ") + std::strerror(errno));
  const auto highest = static_cast<std::int32_t>(filter.highest_known);
  auto written = write_all(fd, &highest, sizeof highest);
  if (written)
    written = write_all(fd, filter.program.data(), filter.program.size() * sizeof(sock_filter));
  if (written && ::fcntl(fd, F_ADD_SEALS, kAllSeals) != 0)
    written = sdk::make_error(std::string("sealing the filter: ") + std::strerror(errno));
  if (!written) {
    ::close(fd);
    return written.error();
  }
  return fd;
}

sdk::Result<seccomp::CompiledFilter> read_sealed_filter(int fd) {
  const int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (static_cast<unsigned>(seals) & kAllSeals) != kAllSeals)
    return sdk::make_error("the syscall filter handed to the launcher is not sealed");
  std::string bytes;
  char buf[8192];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sdk::make_error(std::string("reading the filter: ") + std::strerror(errno));
    if (n == 0) break;
    bytes.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
  seccomp::CompiledFilter out;
  std::int32_t highest = 0;
  const auto program_bytes = bytes.size() < sizeof highest ? 0 : bytes.size() - sizeof highest;
  if (program_bytes == 0 || program_bytes % sizeof(sock_filter) != 0 ||
      program_bytes / sizeof(sock_filter) > BPF_MAXINSNS)
    return sdk::make_error("the syscall filter handed to the launcher is not a whole program (" +
                           std::to_string(bytes.size()) + " bytes)");
  std::memcpy(&highest, bytes.data(), sizeof highest);
  if (highest <= 0)
    return sdk::make_error("the syscall filter handed to the launcher names no highest syscall");
  out.highest_known = highest;
  out.program.resize(program_bytes / sizeof(sock_filter));
  std::memcpy(out.program.data(), bytes.data() + sizeof highest, program_bytes);
  return out;
}

}  // namespace errand::bailey
