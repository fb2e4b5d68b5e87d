#pragma once

// A cgroup subtree handed to an ordinary account, the way a service manager hands one to a unit
// with Delegate=yes: created by root, then owned by the account, which makes the per-session
// cgroups below it. One place for the layout, used by `errand setup` and `errand up` on a host
// without systemd (the errand account's subtree) and by the test suites started as root (the
// test account's, one per test process).
//
// Under a unified cgroup v2 hierarchy the subtree is <mount>/<name> with the memory, pids and cpu
// controllers enabled for its children, and two children: one for the processes (a v2 cgroup
// that enables controllers for its children may hold none itself) and "sessions", the root the
// bailey backend makes session cgroups in (BAILEY_CGROUP_ROOT). Under cgroup v1 it is <name> in
// each of the memory, pids and cpu hierarchies, and bailey makes session cgroups in the cgroup of
// its own process there.

#include <sys/types.h>

#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

namespace errand::setup {

struct CgroupOwner {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};

struct CgroupSubtreePlan {
  std::string name;  // "errand", or "errand-test-<pid>"
  // v1: true puts the subtree below this process's own cgroup of each hierarchy (the tests, so a
  // limit over the whole run still holds); false at the hierarchy's top (the service).
  bool v1_below_own_cgroup = false;
  // v2: the child the joining processes go to ("supervisor" for the daemon, "tests").
  std::string v2_process_child = "supervisor";
  std::string mount = "/sys/fs/cgroup";
};

class CgroupSubtree {
 public:
  enum class Kind { none, v1, v2 };

  // Works out the directories for this host; changes nothing.
  explicit CgroupSubtree(const CgroupSubtreePlan& plan);

  Kind kind() const { return kind_; }
  // "cgroup v2", "cgroup v1", or "no cgroup hierarchy with the memory, pids and cpu controllers".
  std::string describe() const;
  // Every directory, parents before children.
  const std::vector<std::string>& dirs() const { return dirs_; }
  // v2: the root for session cgroups (BAILEY_CGROUP_ROOT); empty under v1.
  const std::string& sessions_root() const { return sessions_root_; }

  // Every directory exists and belongs to owner.
  bool in_place(const CgroupOwner& owner) const;
  // Creates what is missing and gives everything to owner (again, where it already was).
  // The error says which directory or file failed and why.
  sdk::Result<void> create(const CgroupOwner& owner) const;
  // Moves the process pid (0: the caller) into the subtree (v2: into the process child).
  sdk::Result<void> join(pid_t pid) const;
  // Kills what is left inside and removes the directories, children first; the error names
  // every directory that stayed.
  sdk::Result<void> remove() const;

 private:
  Kind kind_ = Kind::none;
  std::vector<std::string> dirs_;
  std::vector<std::string> join_files_;
  std::string sessions_root_;
  std::string top_;  // v2: <mount>/<name>
};

}  // namespace errand::setup
