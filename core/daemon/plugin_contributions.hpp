#pragma once

#include "core/config/plugin_contribution.hpp"
#include "core/plugins/registry.hpp"

#include <vector>

namespace errand::daemon {

// What every loaded plugin adds to the configuration: its schema fragment and its validator,
// called through the C descriptor.
std::vector<config::PluginContribution> contributions_of(const plugins::PluginRegistry& registry);

}  // namespace errand::daemon
