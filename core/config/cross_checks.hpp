#pragma once

#include <boost/json/object.hpp>
#include <vector>

#include "core/config/problem.hpp"

namespace errand::config {

// The rules a schema cannot state because they relate keys to each other: projectRoot and
// stateDir apart, agent.provider defined, a command for an acp agent, provider near-miss keys,
// strictCapabilities with a list, alias names, agent.fallback entries (fallback_checks.hpp), one
// GitHub identity (sandbox.env names are the sandbox policy's: core/sandbox/policy_problems). Runs
// over the configuration with defaults filled; a part of the wrong type is skipped here, since the
// schema validation reports it already.
void check_across_keys(const boost::json::object& config, std::vector<Problem>& problems);

}  // namespace errand::config
