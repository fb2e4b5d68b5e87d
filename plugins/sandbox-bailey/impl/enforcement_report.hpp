#pragma once

// The startup report: what this host lets bailey enforce of the policy the core decided,
// each gap with a sentence saying what is not enforced and why. Pure, so the wording is tested
// against hand-made host features.

#include <errand/sdk/sandbox_backend.hpp>

#include "plugins/sandbox-bailey/common/host_features.hpp"

namespace errand::bailey {

// The backend's name and what it is, before anything of the host is known: also what a probe
// that could not run reports, under its gap.
sdk::EnforcementReport unprobed_report();

sdk::EnforcementReport build_report(const HostFeatures& host, const sdk::SandboxPolicy& policy);

}  // namespace errand::bailey
