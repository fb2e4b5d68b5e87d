#pragma once

// The ACP client's options as the effective configuration sets them.

#include "core/agent/acp_types.hpp"

#include <boost/json/object.hpp>

namespace errand::agent {

// agent.permissions (allow|ask) and timeouts.startupMs for session set-up; the rest keep their
// defaults.
AcpClientOptions acp_client_options_from(const boost::json::object& config);

}  // namespace errand::agent
