// The delegated cgroup subtree, made and removed for real (as root) under a name of its own.
#include "core/setup/cgroup_subtree.hpp"

#include "tests/support/test_account.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <sstream>

using namespace errand::setup;

namespace {

CgroupOwner test_owner() {
  std::string why;
  const auto account = errand::test::find_test_account(why);
  INFO(why);
  REQUIRE(account);
  return {account->name, account->uid, account->gid};
}

bool owned_by(const std::string& path, const CgroupOwner& owner) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && st.st_uid == owner.uid && st.st_gid == owner.gid;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE(
    "a subtree at the top of the hierarchies is made, given to the account, joined and removed") {
  const auto owner = test_owner();
  const CgroupSubtree subtree(CgroupSubtreePlan{
      .name = "errand-setup-test-" + std::to_string(::getpid()), .v1_below_own_cgroup = false});
  REQUIRE(subtree.kind() != CgroupSubtree::Kind::none);
  CHECK_FALSE(subtree.in_place(owner));
  REQUIRE(subtree.create(owner).has_value());
  CHECK(subtree.in_place(owner));
  for (const auto& dir : subtree.dirs()) {
    INFO(dir);
    CHECK(owned_by(dir, owner));
    CHECK(owned_by(dir + "/cgroup.procs", owner));
  }
  if (subtree.kind() == CgroupSubtree::Kind::v2) {
    CHECK(subtree.dirs().size() == 3);
    CHECK(subtree.sessions_root() == subtree.dirs()[0] + "/sessions");
  } else {
    // One directory in each of the memory, pids and cpu hierarchies, at their tops.
    CHECK(subtree.sessions_root().empty());
    for (const auto& dir : subtree.dirs()) CHECK(dir.rfind("/sys/fs/cgroup/", 0) == 0);
  }
  // Made twice is still made once: create gives again what is there.
  REQUIRE(subtree.create(owner).has_value());

  // A child process joins it and is listed there.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const auto joined = subtree.join(child);
  INFO((joined ? std::string() : joined.error().message));
  CHECK(joined.has_value());
  const auto procs_dir =
      subtree.kind() == CgroupSubtree::Kind::v2 ? subtree.dirs()[1] : subtree.dirs()[0];
  CHECK(read_all(procs_dir + "/cgroup.procs").find(std::to_string(child)) != std::string::npos);

  // Removing it ends what is still inside, and every directory goes.
  const auto removed = subtree.remove();
  INFO((removed ? std::string() : removed.error().message));
  CHECK(removed.has_value());
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  for (const auto& dir : subtree.dirs()) CHECK_FALSE(exists(dir));
  CHECK_FALSE(subtree.in_place(owner));
}

TEST_CASE("joining a subtree that was never made fails saying where") {
  const CgroupSubtree subtree(
      CgroupSubtreePlan{.name = "errand-setup-absent-" + std::to_string(::getpid())});
  const auto joined = subtree.join(::getpid());
  REQUIRE_FALSE(joined.has_value());
  CHECK(joined.error().message.find("errand-setup-absent-") != std::string::npos);
}
