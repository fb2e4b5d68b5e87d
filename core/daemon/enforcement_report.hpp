#pragma once

#include <errand/sdk/sandbox_backend.hpp>
#include <string>

namespace errand::daemon {

// The start-up report of what the sandbox backend enforces on this host. A gap is always
// stated, and a writable grant is called out on its own line: a report that left either out
// would describe a tighter boundary than the one in force.
std::string render_enforcement_report(const sdk::EnforcementReport& report);

// One line per gap, for the refusal when sandbox.requireFullEnforcement holds.
std::string render_gap_refusal(const sdk::EnforcementReport& report);

}  // namespace errand::daemon
