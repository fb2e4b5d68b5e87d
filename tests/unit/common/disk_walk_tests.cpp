// The disk walk on real trees: what it counts, what it refuses to trust, and that it stays
// within two descriptors and one slice of work at a time.

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/disk_budget/disk_walk.hpp"
#include "common/disk_budget/disk_walker.hpp"
#include "tests/support/temp_dir.hpp"

using namespace errand::common;
namespace fs = std::filesystem;

namespace {

struct Tree {
  Tree() {
    fs::create_directories(inside());
    fs::create_directories(outside());
  }
  ~Tree() {
    // TempDir removes the rest; a directory left shut would stop it.
    std::error_code ec;
    for (const auto& locked : locked_dirs) fs::permissions(locked, fs::perms::owner_all, ec);
  }
  fs::path inside() const { return dir / "inside"; }
  fs::path outside() const { return dir / "outside"; }
  errand::test::TempDir dir;
  std::vector<fs::path> locked_dirs;
};

void write(const fs::path& p, std::size_t bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << std::string(bytes, 'x');
}

DiskUsage measured(const fs::path& root) {
  auto usage = measure_disk_usage({root});
  INFO((usage ? std::string() : usage.error().message));
  REQUIRE(usage.has_value());
  return *usage;
}

int open_descriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// Through the walker, whose thread reads without overriding permissions even when the test
// runs as root: the error, or "" when the walk succeeded.
std::string walk_on_walker(const fs::path& root) {
  DiskWalker walker;
  std::mutex mutex;
  std::condition_variable cv;
  std::optional<std::string> outcome;
  walker.submit({root}, [&](errand::sdk::Result<DiskUsage> r) {
    std::lock_guard lock(mutex);
    outcome = r ? std::string() : r.error().message;
    cv.notify_all();
  });
  std::unique_lock lock(mutex);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return outcome.has_value(); }));
  return *outcome;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("disk use counts allocated bytes and inodes once per file") {
  Tree t;
  const auto empty = measured(t.inside());
  CHECK(empty.inodes == 1);
  write(t.inside() / "a", 1 << 20);
  const auto one = measured(t.inside());
  CHECK(one.bytes - empty.bytes >= (1u << 20));
  CHECK(one.bytes - empty.bytes < (1u << 20) + 64 * 1024);
  CHECK(one.inodes == 2);
  fs::create_hard_link(t.inside() / "a", t.inside() / "a-again");
  CHECK(measured(t.inside()).bytes == one.bytes);
  CHECK(measured(t.inside()).inodes == 2);
  write(t.inside() / "sub" / "deeper" / "b", 10);
  CHECK(measured(t.inside()).inodes == 5);
  auto both = measure_disk_usage({t.inside(), t.outside()});
  REQUIRE(both.has_value());
  CHECK(both->inodes == 6);
}

TEST_CASE("a symlink to a large tree outside counts as one small link, never as the tree") {
  Tree t;
  write(t.outside() / "big", 8 << 20);
  for (int i = 0; i < 200; ++i) write(t.outside() / "many" / std::to_string(i), 1);
  const auto before = measured(t.inside());
  fs::create_symlink(t.outside(), t.inside() / "link-to-outside");
  fs::create_symlink(t.outside() / "big", t.inside() / "link-to-big");
  fs::create_directories(t.inside() / "sub");
  fs::create_symlink("../../outside/many", t.inside() / "sub" / "relative-link");
  const auto after = measured(t.inside());
  CHECK(after.bytes < before.bytes + 64 * 1024);
  CHECK(after.inodes == before.inodes + 4);
}

TEST_CASE("a directory the daemon may not read makes the walk fail, naming it") {
  Tree t;
  write(t.inside() / "visible", 10);
  write(t.inside() / "hidden" / "blob", 1 << 20);
  REQUIRE(walk_on_walker(t.inside()).empty());
  fs::permissions(t.inside() / "hidden", fs::perms::none);
  t.locked_dirs.push_back(t.inside() / "hidden");
  const auto error = walk_on_walker(t.inside());
  CHECK(contains(error, (t.inside() / "hidden").string()));
  CHECK(contains(error, "Permission denied"));

  // Listable but not searchable: the names are there, their sizes are not.
  fs::permissions(t.inside() / "hidden", fs::perms::owner_read);
  CHECK(contains(walk_on_walker(t.inside()), "Permission denied"));
}

TEST_CASE("a tree deeper than a path can name makes the walk fail rather than stop short") {
  Tree t;
  const std::string level(200, 'd');
  const int fd = ::open(t.inside().c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  // Built one level at a time relative to the last, as an agent would with cd.
  int at = fd;
  for (int i = 0; i < 30; ++i) {
    REQUIRE(::mkdirat(at, level.c_str(), 0755) == 0);
    const int next = ::openat(at, level.c_str(), O_RDONLY | O_DIRECTORY);
    REQUIRE(next >= 0);
    if (at != fd) ::close(at);
    at = next;
  }
  if (at != fd) ::close(at);
  ::close(fd);
  auto usage = measure_disk_usage({t.inside()});
  // Deeper than std::filesystem can remove; rm walks it relative to each directory.
  CHECK(std::system(("rm -rf '" + t.inside().string() + "'").c_str()) == 0);
  REQUIRE_FALSE(usage.has_value());
  CHECK(contains(usage.error().message, "File name too long"));
}

TEST_CASE("an entry removed during the walk is skipped and the walk goes on") {
  Tree t;
  for (const char* dir : {"a", "b", "c"})
    for (int i = 0; i < 5; ++i) write(t.inside() / dir / std::to_string(i), 4096);
  DiskWalk walk({t.inside()});
  // The top folder's three entries are listed and queued, none of them read yet.
  REQUIRE_FALSE(walk.step(3));
  fs::remove_all(t.inside() / "b");
  while (!walk.step(1)) {
  }
  REQUIRE(walk.result().has_value());
  // The root, a, b (counted when listed) and c, and the ten files left in a and c.
  CHECK(walk.result()->inodes == 14);
}

TEST_CASE("the walk holds at most two descriptors however deep the tree") {
  Tree t;
  fs::path deep = t.inside();
  for (int i = 0; i < 40; ++i) deep /= "level";
  write(deep / "leaf", 1);
  const int before = open_descriptors();
  DiskWalk walk({t.inside()});
  int most = 0;
  while (!walk.step(1)) most = std::max(most, open_descriptors() - before);
  REQUIRE(walk.result().has_value());
  CHECK(walk.result()->inodes == 42);
  CHECK(most <= 2);
  CHECK(open_descriptors() == before);
}

TEST_CASE("a small walk is not held behind two huge ones: each gets a slice in turn") {
  Tree t;
  for (int i = 0; i < 2000; ++i) {
    write(t.dir / "huge-1" / std::to_string(i), 0);
    write(t.dir / "huge-2" / std::to_string(i), 0);
  }
  write(t.inside() / "small", 1);
  DiskWalker walker(16);
  std::mutex mutex;
  std::condition_variable cv;
  // Catch's assertions belong to the test's thread, so the walker's thread only records.
  std::vector<std::string> finished;
  auto done = [&](std::string name) {
    return [&, name](errand::sdk::Result<DiskUsage> r) {
      std::lock_guard lock(mutex);
      finished.push_back(r.has_value() ? name : name + " failed: " + r.error().message);
      cv.notify_all();
    };
  };
  // Queued from the walker's own thread, so all three wait before the first slice is taken:
  // the huge ones first, as if two sessions' walks were already under way.
  walker.submit({t.outside()}, [&](errand::sdk::Result<DiskUsage>) {
    walker.submit({t.dir / "huge-1"}, done("huge-1"));
    walker.submit({t.dir / "huge-2"}, done("huge-2"));
    walker.submit({t.inside()}, done("small"));
  });
  std::unique_lock lock(mutex);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return finished.size() == 3; }));
  CHECK(finished == std::vector<std::string>{"small", "huge-1", "huge-2"});
}
