#pragma once

// The part of a session's broker spec its sandbox policy decides: the ports, hosts and internal
// ranges the broker enforces for that session. The broker reads none of sandbox.* itself.

#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/sandbox_policy.hpp>

namespace errand::sandbox {

// A spec carrying the policy's egress; the caller adds the session's id and paths.
sdk::BrokerSessionSpec broker_session_spec(const sdk::SandboxPolicy& policy);

}  // namespace errand::sandbox
