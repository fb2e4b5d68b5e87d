#pragma once

// One measurement of a session's disk use, done a slice at a time so that one huge tree never
// holds a worker for long (see disk_walker.hpp). The agent runs as the daemon's uid and
// decides what its trees look like, so the walk trusts nothing it finds:
//
// * no symlink is followed, anywhere: each directory is opened beneath its root with
//   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, so a link swapped in for a directory is not entered;
// * a file with several links is counted once, in bytes and in inodes;
// * an entry that vanishes between being listed and being looked at is not counted (it no
//   longer uses space) and the walk goes on;
// * anything else that cannot be read (a directory made unreadable, a path too long to open)
//   ends the walk with an error: a total that left it out would be too low;
// * at most two descriptors are open at any time: the root, and the directory being read.

#include <errand/sdk/result.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace errand::common {

struct DiskUsage {
  std::uint64_t bytes = 0;   // allocated, not apparent
  std::uint64_t inodes = 0;  // files, directories, links and the rest, each inode once
};

class DiskWalk {
 public:
  explicit DiskWalk(std::vector<std::filesystem::path> roots);
  ~DiskWalk();
  DiskWalk(const DiskWalk&) = delete;
  DiskWalk& operator=(const DiskWalk&) = delete;

  // Looks at up to `entries` directory entries; true once the walk is over, with result().
  bool step(std::size_t entries);
  bool done() const { return done_; }
  const sdk::Result<DiskUsage>& result() const { return result_; }

 private:
  bool open_next_root();
  bool open_next_directory();
  void count(const struct stat& st);
  void fail(const std::string& relative, int error);
  void close_directory();

  std::vector<std::filesystem::path> roots_;
  std::size_t next_root_ = 0;
  int root_fd_ = -1;
  DIR* directory_ = nullptr;
  std::string directory_path_;        // relative to the root; empty for the root itself
  std::vector<std::string> pending_;  // directories still to read, relative to the root
  std::set<std::pair<dev_t, ino_t>> linked_;
  DiskUsage usage_;
  bool done_ = false;
  sdk::Result<DiskUsage> result_ = DiskUsage{};
};

// The whole walk at once, for a caller that may block (tests, the report).
sdk::Result<DiskUsage> measure_disk_usage(const std::vector<std::filesystem::path>& roots);

}  // namespace errand::common
