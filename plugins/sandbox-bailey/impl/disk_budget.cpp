#include "plugins/sandbox-bailey/impl/disk_budget.hpp"

#include <algorithm>
#include <cstdio>

namespace errand::bailey {

std::chrono::milliseconds next_disk_check(std::uint64_t budget, const DiskSample& previous,
                                          const DiskSample& current,
                                          std::chrono::milliseconds max_interval) {
  using std::chrono::milliseconds;
  if (current.growth >= budget) return milliseconds(0);
  const milliseconds floor = std::min(milliseconds(1000), max_interval);
  const auto elapsed = std::chrono::duration_cast<milliseconds>(current.at - previous.at);
  if (current.growth <= previous.growth || elapsed.count() <= 0) return max_interval;
  const double rate = static_cast<double>(current.growth - previous.growth) /
                      static_cast<double>(elapsed.count());  // bytes per ms
  const double to_budget = static_cast<double>(budget - current.growth) / rate;
  const double half = to_budget / 2.0;
  if (half >= static_cast<double>(max_interval.count())) return max_interval;
  return std::max(floor, milliseconds(static_cast<std::int64_t>(half)));
}

std::string human_size(std::uint64_t bytes) {
  const char* units = "kmgt";
  for (int i = 4; i >= 1; --i) {
    const std::uint64_t unit = std::uint64_t{1} << (10 * i);
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + units[i - 1];
  }
  if (bytes >= (1u << 20)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fm", static_cast<double>(bytes) / (1 << 20));
    return buf;
  }
  return std::to_string(bytes) + " bytes";
}

}  // namespace errand::bailey
