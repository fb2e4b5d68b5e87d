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

}  // namespace errand::incus::guest
