#pragma once

// The disk budget is measured, not enforced: no backend can cap what a process tree writes in
// aggregate without a sized filesystem under it. The session's growth over /workspace and
// /state is measured from a starting baseline, and checked more often the faster it grows.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::bailey {

// Bytes allocated under each root: symlinks are not followed, a file with several links is
// counted once, and entries that vanish during the walk are skipped.
std::uint64_t measure_disk_usage(const std::vector<std::filesystem::path>& roots);

struct DiskSample {
  std::uint64_t growth = 0;  // bytes over the baseline
  std::chrono::steady_clock::time_point at{};
};

// When to measure next: half the time the current rate would take to reach the budget,
// clamped to [1 s, max_interval]. Growth at or past the budget returns zero (stop now); no
// growth since the previous sample waits the full max_interval.
std::chrono::milliseconds next_disk_check(std::uint64_t budget, const DiskSample& previous,
                                          const DiskSample& current,
                                          std::chrono::milliseconds max_interval);

// "5g", "512m": a size the way the configuration writes it, for messages.
std::string human_size(std::uint64_t bytes);

}  // namespace errand::bailey
