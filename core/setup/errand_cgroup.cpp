#include "core/setup/errand_cgroup.hpp"

namespace errand::setup {

CgroupSubtree errand_cgroup_subtree(const HostPaths& host) {
  return CgroupSubtree(CgroupSubtreePlan{.name = "errand",
                                         .v1_below_own_cgroup = false,
                                         .v2_process_child = "supervisor",
                                         .mount = host.cgroup_mount.string()});
}

}  // namespace errand::setup
