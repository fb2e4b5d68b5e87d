#include "core/remote/snapshot/path_on_disk.hpp"
#include "core/remote/quoted_text.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "common/unique_fd.hpp"
#include "core/remote/snapshot/manifest_rules.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/snapshot/symlink_target.hpp"

namespace errand::remote {
namespace {

constexpr std::string_view kOnlyFilesAndLinks =
    "remote-run sends only regular files and symlinks; remove it or leave it out of the selection";

std::string_view special_file_kind_name(mode_t mode) {
  if (S_ISFIFO(mode)) return "a named pipe (fifo)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "neither a regular file nor a symlink";
}

// The content as it is read, never held whole; size is what was hashed, even if the file grows
// or shrinks meanwhile.
sdk::Result<PathOnDisk> read_regular_file(const std::filesystem::path& full,
                                          std::string_view relative) {
  // O_NONBLOCK: were a fifo swapped in since the lstat, opening it must not wait for a writer.
  common::UniqueFd fd(
      ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
  if (!fd) {
    if (errno == ENOENT || errno == ENOTDIR) return vanished_refusal(full);
    if (errno == ELOOP)
      return sdk::refusal(fmt::format(
          "cannot send {}: it became a symlink while the tree was being read", full.string()));
    return sdk::refusal(
        fmt::format("cannot send {}: it cannot be read: {}", full.string(), std::strerror(errno)));
  }
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0)
    return sdk::make_error(fmt::format("cannot send {}: {}", full.string(), std::strerror(errno)));
  if (!S_ISREG(status.st_mode))
    return sdk::refusal(fmt::format("cannot send {}: it is {}; {}", full.string(),
                                    special_file_kind_name(status.st_mode), kOnlyFilesAndLinks));
  const auto digest = sha256_of_open_file(fd.get());
  if (!digest)
    return sdk::make_error(fmt::format("cannot send {}: reading it failed: {}", full.string(),
                                       digest.error().message));
  PathOnDisk read;
  read.kind = PathOnDisk::Kind::entry;
  read.entry.path = std::string(relative);
  read.entry.kind = (status.st_mode & 0111) != 0 ? EntryKind::executable : EntryKind::file;
  read.entry.size = digest->size;
  read.entry.sha256 = digest->sha256;
  return read;
}

sdk::Result<PathOnDisk> read_symlink(const std::filesystem::path& root,
                                     const std::filesystem::path& full, std::string_view relative) {
  std::string target(PATH_MAX, '\0');
  const ssize_t length = ::readlink(full.c_str(), target.data(), target.size());
  if (length < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return vanished_refusal(full);
    return sdk::refusal(fmt::format("cannot send {}: its symlink target cannot be read: {}",
                                    full.string(), std::strerror(errno)));
  }
  if (static_cast<std::size_t>(length) >= target.size())
    return sdk::refusal(fmt::format("cannot send {}: its symlink target is longer than {} bytes",
                                    full.string(), PATH_MAX - 1));
  target.resize(static_cast<std::size_t>(length));
  NamesOnlyTree names;
  switch (walk_symlink_target(relative, target, names)) {
    case SymlinkReach::absolute:
      return sdk::refusal(fmt::format(
          "cannot send {}: it is a symlink to {}, an absolute path, which would lead somewhere "
          "else on the runner; only symlinks that lead inside {} can be sent",
          full.string(), quote_text(target), root.string()));
    case SymlinkReach::above_root:
    case SymlinkReach::up_through_symlink:
      return sdk::refusal(fmt::format(
          "cannot send {}: it is a symlink to {}, which leads outside {}; only symlinks that "
          "lead inside it can be sent",
          full.string(), quote_text(target), root.string()));
    case SymlinkReach::inside: break;
  }
  PathOnDisk read;
  read.kind = PathOnDisk::Kind::entry;
  read.entry.path = std::string(relative);
  read.entry.kind = EntryKind::symlink;
  read.entry.target = std::move(target);
  return read;
}

}  // namespace

sdk::Error vanished_refusal(const std::filesystem::path& full) {
  return sdk::refusal(fmt::format(
      "cannot send {}: it vanished while the tree was being read; try again once nothing is "
      "changing the tree",
      full.string()));
}

sdk::Result<PathOnDisk> read_path_on_disk(const std::filesystem::path& root,
                                          std::string_view relative) {
  const auto full = root / std::filesystem::path(std::string(relative));
  struct stat status {};
  if (::lstat(full.c_str(), &status) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return PathOnDisk{PathOnDisk::Kind::missing, {}};
    return sdk::refusal(fmt::format("cannot send {}: it cannot be looked at: {}", full.string(),
                                    std::strerror(errno)));
  }
  if (S_ISDIR(status.st_mode)) return PathOnDisk{PathOnDisk::Kind::directory, {}};
  if (S_ISLNK(status.st_mode)) return read_symlink(root, full, relative);
  if (S_ISREG(status.st_mode)) return read_regular_file(full, relative);
  return sdk::refusal(fmt::format("cannot send {}: it is {}; {}", full.string(),
                                  special_file_kind_name(status.st_mode), kOnlyFilesAndLinks));
}

}  // namespace errand::remote
