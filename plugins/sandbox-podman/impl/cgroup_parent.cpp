#include "plugins/sandbox-podman/impl/cgroup_parent.hpp"

#include <cstdlib>

#include "common/cgroups/cgroups.hpp"

namespace errand::podman {

CgroupParent find_cgroup_parent(const std::string& mount) {
  CgroupParent parent;
  const char* root = std::getenv("BAILEY_CGROUP_ROOT");
  const auto layout = cgroups::detect(root != nullptr ? root : "");
  if (layout.kind != cgroups::Kind::v2) {
    parent.problems.push_back(
        "no cgroup v2 subtree is delegated to this account (BAILEY_CGROUP_ROOT is unset and "
        "the daemon does not run in a \"supervisor\" cgroup of one)");
    return parent;
  }
  parent.problems = layout.problems;
  if (layout.memory.empty() || layout.pids.empty() || layout.cpu.empty()) return parent;
  // Under v2 the three are the one delegated root.
  if (layout.memory.rfind(mount + "/", 0) != 0) {
    parent.problems.push_back("the delegated subtree " + layout.memory + " is not under " + mount);
    return parent;
  }
  parent.path = layout.memory.substr(mount.size());
  return parent;
}

}  // namespace errand::podman
