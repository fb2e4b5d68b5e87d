#include "core/sandbox/host_capacity.hpp"

#include <sched.h>

#include <fstream>
#include <sstream>
#include <string>

namespace errand::sandbox {

sdk::Result<std::uint64_t> memory_in_meminfo(const std::filesystem::path& meminfo) {
  std::ifstream in(meminfo);
  if (!in) return sdk::make_error("cannot read " + meminfo.string());
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    std::uint64_t kib = 0;
    std::string unit;
    if (!(fields >> name) || name != "MemTotal:") continue;
    if (!(fields >> kib >> unit) || unit != "kB" || kib == 0)
      return sdk::make_error(meminfo.string() + " has a MemTotal line errand cannot read: " + line);
    return kib * 1024;
  }
  return sdk::make_error(meminfo.string() + " has no MemTotal line");
}

namespace {

sdk::Result<HostCapacity> read_capacity() {
  auto memory = memory_in_meminfo("/proc/meminfo");
  if (!memory) return memory.error();
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0)
    return sdk::make_error("cannot read the CPUs errand may run on (sched_getaffinity)");
  const int cpus = CPU_COUNT(&mask);
  if (cpus <= 0) return sdk::make_error("errand's affinity mask names no CPU");
  return HostCapacity{*memory, static_cast<unsigned>(cpus)};
}

}  // namespace

const sdk::Result<HostCapacity>& this_host_capacity() {
  static const sdk::Result<HostCapacity> capacity = read_capacity();
  return capacity;
}

}  // namespace errand::sandbox
