#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <string>
#include <vector>

#include "core/config/problem.hpp"

namespace errand::config {

// Per provider definition: a key that reads as a misspelling of placement, capabilities or
// strictCapabilities is refused (a misspelt one would leave the route open), and so is
// strictCapabilities without a capabilities list. Other unknown keys are the operator's own.
void check_provider_definitions(const boost::json::object& config, std::vector<Problem>& problems);

// The environment variables that carry a provider credential (each provider's credentialName,
// and agent.credentialVariable), each with what it carries, for messages.
std::map<std::string, std::string> credential_carriers(const boost::json::object& config);

}  // namespace errand::config
