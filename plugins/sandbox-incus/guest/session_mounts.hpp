#pragma once

// Incus 6.0 has no tmpfs device, so the init gives the session its fresh /tmp and /dev/shm
// itself: root in the container's user namespace may mount tmpfs. The pages are charged to the
// container's memory cgroup, so limits.memory bounds them too.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string>

namespace errand::incus::guest {

// A tmpfs of size bytes (rounded up to pages by the kernel), mode 1777, nosuid and nodev, on
// dir, created when missing. The error names the step and the errno.
sdk::Result<void> mount_fresh_tmpfs(const std::string& dir, std::uint64_t bytes);

// Binds source (the tools directory's device) at sdk::kToolsMountPoint, creating the mount point,
// and makes the bind read-only, keeping the flags the source had (a remount that dropped a
// flag locked by the user namespace would be refused). Refused unless it ends read-only.
sdk::Result<void> bind_tools_read_only(const std::string& source);

}  // namespace errand::incus::guest
