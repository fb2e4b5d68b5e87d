#pragma once

// What "the host" is when sandbox.memory or sandbox.cpus is a share of it ("80%"): the memory
// the kernel reports (MemTotal, which lxcfs narrows inside a container) and the CPUs the daemon
// may run on (its affinity mask, which a cpuset or taskset narrows). Each session gets the
// whole share; nothing here divides it between sessions.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>

namespace errand::sandbox {

struct HostCapacity {
  std::uint64_t memory_bytes = 0;
  unsigned cpus = 0;
};

// This host's, read once and then remembered: neither changes while the daemon runs. An error
// names what could not be read.
const sdk::Result<HostCapacity>& this_host_capacity();

// MemTotal from a meminfo file, in bytes (the file's unit is kB).
sdk::Result<std::uint64_t> memory_in_meminfo(const std::filesystem::path& meminfo);

}  // namespace errand::sandbox
