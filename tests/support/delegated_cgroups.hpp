#pragma once

// A cgroup subtree handed to the test account for one test process, made the way a service
// manager makes one for a unit with Delegate=yes (core/setup/cgroup_subtree.hpp, the same code
// `errand setup` uses for the errand account): errand-test-<pid> below the root parent's own
// cgroup in the memory, pids and cpu v1 hierarchies, so a limit over the whole run still holds;
// or, under a unified cgroup v2 hierarchy, below the v2 root, holding "tests" (where the test
// process goes) and "sessions" (BAILEY_CGROUP_ROOT).

#include <optional>
#include <string>
#include <vector>

#include "core/setup/cgroup_subtree.hpp"
#include "tests/support/test_account.hpp"

namespace errand::test {

class DelegatedCgroups {
 public:
  // As root. Also removes what earlier test processes, since gone, left behind. No subtree
  // (and no error) on a host with neither layout; error says what failed otherwise.
  bool create(const TestAccount& account, std::string& error);
  // In the child, still root: moves it into the subtree and points BAILEY_CGROUP_ROOT where
  // the account may make session cgroups (unset under v1, where bailey finds its own).
  bool join(std::string& error) const;
  // As root, once the child is gone: kills what is left inside and removes the directories.
  void remove() const;

 private:
  std::optional<setup::CgroupSubtree> subtree_;
};

// For a daemon a test starts with an environment of its own: where it may make session cgroups
// (BAILEY_CGROUP_ROOT, when the suite's environment has it), as "NAME=value" words.
std::vector<std::string> delegated_environment();

}  // namespace errand::test
