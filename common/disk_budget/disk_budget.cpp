#include "common/disk_budget/disk_budget.hpp"

#include <algorithm>

namespace errand::common {

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

}  // namespace errand::common
