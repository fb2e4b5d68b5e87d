#pragma once

// The kernel's Landlock ruleset for a policy: rules_for()'s rules added for the paths as the
// calling process sees them. The launcher restricts the agent with it; the launch benchmark
// builds it alone to show what it costs.

#include <errand/sdk/result.hpp>

#include "plugins/sandbox-bailey/common/policy.hpp"

namespace errand::bailey::landlock {

// bailey's rules are written in the kernel ABI's terms (common/landlock), as its own.
using namespace errand::landlock;

// The ruleset's fd (the caller's to close), built for abi (the running kernel's, at most
// kNewestKnownAbi). A path that does not exist gets no rule; a file's rights are narrowed to
// the ones a file can have. An error names the step and the kernel's reason.
sdk::Result<int> make_ruleset(const Policy& policy, int abi);

}  // namespace errand::bailey::landlock
