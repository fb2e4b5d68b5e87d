#pragma once

#include <boost/json/object.hpp>
#include <vector>

#include "core/config/problem.hpp"

namespace errand::config {

// The changes between two effective configurations that a reload does not reach, each as a
// Problem whose path is the dotted key (or the provider, for one added or removed) and whose
// message says why and what to do. Not reached: everything under chat (the connection, its
// token and who may use the bot), sandbox.backend, the egress broker and the provider routes it
// holds (sandbox.egress*, sandbox.egressPorts, and each provider's baseUrl, credential,
// credentialName, placement, capabilities, strictCapabilities, kind and broker),
// plugins.path, stateDir, and web.host / web.port. logging, limits, timeouts, output and the
// rest of agent are reached. When anything changed at all, a last entry with path "" notes that
// running sessions keep what they were launched with. Secret values never appear in messages.
std::vector<Problem> unreachable_by_reload(const boost::json::object& before_effective,
                                           const boost::json::object& after_effective);

}  // namespace errand::config
