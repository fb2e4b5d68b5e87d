#include "common/disk_budget/disk_walk.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace errand::common {

namespace fs = std::filesystem;

namespace {

constexpr int kDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

int open_beneath(int root_fd, const std::string& relative) {
  open_how how{};
  how.flags = kDirectoryFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const char* path = relative.empty() ? "." : relative.c_str();
  return static_cast<int>(::syscall(SYS_openat2, root_fd, path, &how, sizeof how));
}

// Gone since it was listed, or no longer a directory: what is there now is not what was
// counted, and the next walk counts it.
bool vanished(int error) {
  return error == ENOENT || error == ENOTDIR || error == ELOOP;
}

}  // namespace

DiskWalk::DiskWalk(std::vector<fs::path> roots) : roots_(std::move(roots)) {}

DiskWalk::~DiskWalk() {
  close_directory();
  if (root_fd_ >= 0) ::close(root_fd_);
}

void DiskWalk::close_directory() {
  if (directory_ != nullptr) ::closedir(directory_);
  directory_ = nullptr;
}

void DiskWalk::fail(const std::string& relative, int error) {
  const auto root = roots_[next_root_ - 1];
  const auto where = relative.empty() ? root : root / relative;
  result_ =
      sdk::make_error(where.string() + " could not be measured (" + std::strerror(error) + ")",
                      sdk::Error::Kind::failed);
  close_directory();
  done_ = true;
}

void DiskWalk::count(const struct stat& st) {
  if (st.st_nlink > 1 && !S_ISDIR(st.st_mode) && !linked_.emplace(st.st_dev, st.st_ino).second)
    return;
  usage_.bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
  usage_.inodes += 1;
}

bool DiskWalk::open_next_root() {
  if (root_fd_ >= 0) ::close(root_fd_);
  root_fd_ = -1;
  if (next_root_ == roots_.size()) {
    result_ = usage_;
    done_ = true;
    return false;
  }
  const auto& root = roots_[next_root_++];
  // The roots are the daemon's own paths, mounted as /workspace and /state, so the agent can
  // change what is beneath them but not what they are: a link on the way to one is the
  // operator's and is followed.
  root_fd_ = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st {};
  if (root_fd_ < 0 || ::fstat(root_fd_, &st) != 0) {
    fail({}, errno);
    return false;
  }
  count(st);
  pending_.assign(1, std::string());
  return true;
}

bool DiskWalk::open_next_directory() {
  while (directory_ == nullptr) {
    if (pending_.empty() && !open_next_root()) return false;
    if (pending_.empty()) continue;
    directory_path_ = std::move(pending_.back());
    pending_.pop_back();
    const int fd = open_beneath(root_fd_, directory_path_);
    if (fd < 0) {
      if (vanished(errno)) continue;
      fail(directory_path_, errno);
      return false;
    }
    directory_ = ::fdopendir(fd);
    if (directory_ == nullptr) {
      const int error = errno;
      ::close(fd);
      fail(directory_path_, error);
      return false;
    }
  }
  return true;
}

bool DiskWalk::step(std::size_t entries) {
  while (!done_ && entries > 0) {
    if (!open_next_directory()) break;
    errno = 0;
    const dirent* entry = ::readdir(directory_);
    if (entry == nullptr) {
      if (errno != 0) {
        fail(directory_path_, errno);
        break;
      }
      close_directory();
      continue;
    }
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    --entries;
    struct stat st {};
    if (::fstatat(::dirfd(directory_), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      const int error = errno;
      fail(directory_path_.empty() ? std::string(name) : directory_path_ + "/" + std::string(name),
           error);
      break;
    }
    count(st);
    if (S_ISDIR(st.st_mode))
      pending_.push_back(directory_path_.empty() ? std::string(name)
                                                 : directory_path_ + "/" + std::string(name));
  }
  return done_;
}

sdk::Result<DiskUsage> measure_disk_usage(const std::vector<fs::path>& roots) {
  DiskWalk walk(roots);
  while (!walk.step(4096)) {
  }
  return walk.result();
}

}  // namespace errand::common
