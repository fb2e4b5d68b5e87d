#include "core/setup/errand_cgroup.hpp"

namespace errand::setup {

// Not "errand": OpenRC, in its unified cgroup mode, puts each service it starts in a cgroup named
// after the service, /sys/fs/cgroup/errand for this one, and moves the starting shell into it. A
// subtree of that name with controllers enabled for its children may hold no process, so the move
// would fail and the service would never start.
CgroupSubtree errand_cgroup_subtree(const HostPaths& host) {
  return CgroupSubtree(CgroupSubtreePlan{.name = "errand-daemon",
                                         .v1_below_own_cgroup = false,
                                         .v2_process_child = "supervisor",
                                         .mount = host.cgroup_mount.string()});
}

}  // namespace errand::setup
