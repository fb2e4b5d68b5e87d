#include "common/disk_budget/disk_report.hpp"

#include "common/human_size.hpp"

namespace errand::common {

std::optional<std::string> disk_budget_note(const sdk::SandboxLimits& limits) {
  if (limits.disk_bytes == 0 && limits.disk_inodes == 0) return std::nullopt;
  std::string past;
  if (limits.disk_bytes > 0) past = config_size(limits.disk_bytes);
  if (limits.disk_inodes > 0)
    past += (past.empty() ? "" : " or ") + std::to_string(limits.disk_inodes) +
            " files, directories and links";
  return "disk use over /workspace and /state is measured, not enforced: a session past " + past +
         " is stopped, checked at most every " + std::to_string(limits.disk_check_max.count()) +
         " ms; a tree the daemon cannot read stops it too";
}

}  // namespace errand::common
