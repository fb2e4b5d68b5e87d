#include "core/storage/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

namespace errand::storage {
namespace {

sdk::Error link_refused(const std::filesystem::path& file) {
  return sdk::make_error(
      fmt::format("{} is a symbolic link; errand opens its databases only as regular files, so "
                  "replace the link with the file itself (or move it aside)",
                  file.string()),
      sdk::Error::Kind::refused);
}

}  // namespace

sdk::Result<void> make_private_file(const std::filesystem::path& file) {
  struct stat before {};
  if (::lstat(file.c_str(), &before) == 0 && S_ISLNK(before.st_mode)) return link_refused(file);
  // O_NOFOLLOW closes the gap between the check above and the open: a link swapped in meanwhile
  // fails with ELOOP instead of being followed. Creating the file ourselves fixes its mode before
  // SQLite writes a byte; SQLite gives the -wal and -shm files the database's mode.
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (errno == ELOOP) return link_refused(file);
    return sdk::make_error(fmt::format("cannot open {}: {}", file.string(), std::strerror(errno)));
  }
  struct stat opened {};
  int rc = ::fstat(fd, &opened);
  if (rc == 0 && !S_ISREG(opened.st_mode)) {
    ::close(fd);
    return sdk::make_error(
        fmt::format("{} is not a regular file; move it aside so errand can create its database",
                    file.string()),
        sdk::Error::Kind::refused);
  }
  if (rc == 0) rc = ::fchmod(fd, 0600);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) {
    return sdk::make_error(
        fmt::format("cannot make {} private (mode 0600): {}", file.string(), std::strerror(saved)));
  }
  return {};
}

}  // namespace errand::storage
