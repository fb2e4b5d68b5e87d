#pragma once

// Where rootless podman puts a session container's cgroup under the unified cgroup v2
// hierarchy. Without a systemd user session podman manages cgroups itself (cgroupfs), and as an
// ordinary account it can create a cgroup, and so apply --memory, --cpus and --pids-limit, only
// where that account may write. errand's account has one such place: the subtree delegated to
// it, which bailey makes its session cgroups in (BAILEY_CGROUP_ROOT, set by the systemd unit and
// by `errand up`, or the "sessions" sibling of the "supervisor" cgroup the daemon runs in). Each
// container's cgroup is made there, as a child, through --cgroup-parent.

#include <string>
#include <vector>

namespace errand::podman {

struct CgroupParent {
  // The parent as a path inside the hierarchy ("/system.slice/errand.service"), the form
  // --cgroup-parent takes; empty when there is none.
  std::string path;
  // Why there is none, one sentence each.
  std::vector<std::string> problems;
};

// Finds the delegated subtree and readies it as bailey does: memory, pids and cpu enabled for
// its children, and a child proved creatable. mount is where the hierarchy is mounted.
CgroupParent find_cgroup_parent(const std::string& mount = "/sys/fs/cgroup");

}  // namespace errand::podman
