#include "tests/support/delegated_cgroups.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace errand::test {

namespace {

const char* const kPrefix = "errand-test-";

setup::CgroupSubtreePlan plan_for(long pid) {
  setup::CgroupSubtreePlan plan;
  plan.name = kPrefix + std::to_string(pid);
  plan.v1_below_own_cgroup = true;
  plan.v2_process_child = "tests";
  return plan;
}

// A test process killed before it could clean up leaves its subtree; the next one removes it.
void sweep(const setup::CgroupSubtree& own) {
  std::vector<long> stale;
  for (const auto& dir : own.dirs()) {
    const auto parent = dir.substr(0, dir.rfind('/'));
    DIR* d = ::opendir(parent.c_str());
    if (d == nullptr) continue;
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind(kPrefix, 0) != 0) continue;
      const long pid = std::strtol(name.c_str() + std::strlen(kPrefix), nullptr, 10);
      if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        stale.push_back(pid);
    }
    ::closedir(d);
  }
  for (const long pid : stale) {
    if (auto removed = setup::CgroupSubtree(plan_for(pid)).remove(); !removed)
      std::fprintf(stderr, "test account: %s\n", removed.error().message.c_str());
  }
}

}  // namespace

bool DelegatedCgroups::create(const TestAccount& account, std::string& error) {
  subtree_.emplace(plan_for(::getpid()));
  if (subtree_->kind() == setup::CgroupSubtree::Kind::none) return true;
  sweep(*subtree_);
  if (auto made = subtree_->create({account.name, account.uid, account.gid}); !made) {
    error = made.error().message;
    return false;
  }
  return true;
}

bool DelegatedCgroups::join(std::string& error) const {
  if (!subtree_ || subtree_->kind() == setup::CgroupSubtree::Kind::none) return true;
  if (auto joined = subtree_->join(0); !joined) {
    error = joined.error().message;
    return false;
  }
  // Only the delegated subtree is the account's: a BAILEY_CGROUP_ROOT the caller set is root's.
  if (!subtree_->sessions_root().empty())
    ::setenv("BAILEY_CGROUP_ROOT", subtree_->sessions_root().c_str(), 1);
  else
    ::unsetenv("BAILEY_CGROUP_ROOT");
  return true;
}

void DelegatedCgroups::remove() const {
  if (!subtree_ || subtree_->kind() == setup::CgroupSubtree::Kind::none) return;
  if (auto removed = subtree_->remove(); !removed)
    std::fprintf(stderr, "test account: %s\n", removed.error().message.c_str());
}

std::vector<std::string> delegated_environment() {
  const char* root = std::getenv("BAILEY_CGROUP_ROOT");
  if (root == nullptr) return {};
  return {std::string("BAILEY_CGROUP_ROOT=") + root};
}

}  // namespace errand::test
