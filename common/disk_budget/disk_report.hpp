#pragma once

// What a probe report says of the disk budget, in the same words whichever backend runs the
// session: the budget is measured, not enforced, so it is a note and never an enforced line.

#include <errand/sdk/sandbox_policy.hpp>
#include <optional>
#include <string>

namespace errand::common {

// Nothing when the limits set no disk budget.
std::optional<std::string> disk_budget_note(const sdk::SandboxLimits& limits);

}  // namespace errand::common
