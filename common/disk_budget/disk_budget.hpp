#pragma once

// The disk budget is measured, not enforced: no backend can cap what a process tree writes in
// aggregate without a sized filesystem under it. The session's growth over /workspace and
// /state (in bytes and in inodes) is measured from a starting baseline (disk_walk.hpp), and
// checked more often the faster it grows.

#include <chrono>
#include <cstdint>

namespace errand::common {

struct DiskSample {
  std::uint64_t growth = 0;  // bytes (or inodes) over the baseline
  std::chrono::steady_clock::time_point at{};
};

// When to measure next: half the time the current rate would take to reach the budget (of
// bytes or of inodes, whichever the samples count), clamped to [1 s, max_interval]. Growth at or
// past the budget returns zero (stop now); no growth since the previous sample waits the full
// max_interval.
std::chrono::milliseconds next_disk_check(std::uint64_t budget, const DiskSample& previous,
                                          const DiskSample& current,
                                          std::chrono::milliseconds max_interval);

}  // namespace errand::common
