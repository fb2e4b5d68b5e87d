#pragma once

// The configuration problems only the sandbox policy can find: a policy that cannot be built
// (an allowInternal entry that is no address range, for one) and sandbox.env names the sandbox
// or a provider's key owns. Run at every load, so they are refused before any session starts.

#include <boost/json/object.hpp>
#include <vector>

#include "core/config/plugin_contribution.hpp"
#include "core/config/problem.hpp"

namespace errand::sandbox {

// Over the configuration with defaults filled. The policy is built only from a configuration
// the schema accepted (well_typed): a value of the wrong type is reported by the schema already.
// A policy that builds is handed to the chosen backend's validate_policy among contributions
// (the plugin sandbox-<sandbox.backend>), so a backend checks what the core decided.
void check_sandbox_policy(const boost::json::object& config, bool well_typed,
                          const std::vector<config::PluginContribution>& contributions,
                          std::vector<config::Problem>& problems);

}  // namespace errand::sandbox
