#pragma once

// The startup report: what this host lets bailey enforce for the configuration it was given,
// each gap with a sentence saying what is not enforced and why. Pure, so the wording is tested
// against hand-made host features.

#include <errand/sdk/sandbox_backend.hpp>

#include "plugins/sandbox-bailey/common/host_features.hpp"
#include "plugins/sandbox-bailey/impl/settings.hpp"

namespace errand::bailey {

sdk::EnforcementReport build_report(const HostFeatures& host, const BaileySettings& settings);

}  // namespace errand::bailey
