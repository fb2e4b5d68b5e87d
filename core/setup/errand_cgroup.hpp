#pragma once

// The errand account's delegated cgroup subtree on a host without systemd: "errand-daemon" at the
// top of each v1 hierarchy, or /sys/fs/cgroup/errand-daemon with "supervisor" (the daemon) and
// "sessions" under v2. Under systemd the unit's Delegate=yes makes one instead.

#include "core/setup/cgroup_subtree.hpp"
#include "core/setup/host_paths.hpp"

namespace errand::setup {

CgroupSubtree errand_cgroup_subtree(const HostPaths& host);

}  // namespace errand::setup
