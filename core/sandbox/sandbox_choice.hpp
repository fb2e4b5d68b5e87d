#pragma once

// The core's sandbox.* keys about which backend confines sessions and how strictly, read here
// next to the policy builder so that sandbox.* is read only in core/sandbox/ and in each
// plugin's own schema fragment (tests/tools/sandbox_reads checks it).

#include <boost/json/object.hpp>
#include <errand/sdk/sandbox_policy.hpp>
#include <string>

namespace errand::sandbox {

struct SandboxChoice {
  std::string backend;                   // sandbox.backend: the plugin is sandbox-<backend>
  bool require_full_enforcement = true;  // sandbox.requireFullEnforcement
};

// From a validated configuration; an absent key takes the schema's default.
SandboxChoice sandbox_choice(const boost::json::object& config);

// sandbox.egress.mode alone, for the readers that need only whether provider traffic goes
// through the broker (the agent's provider routes, kage's configuration check); a value the
// schema would refuse reads as proxy, the mode that hands the agent no real key.
sdk::EgressMode egress_mode(const boost::json::object& config);

}  // namespace errand::sandbox
