#pragma once

// Strings out of the effective configuration for the agent glue. The configuration was
// validated before the glue reads it, so the glue only needs to know whether a string is set:
// absent, or anything other than a string, reads as "".

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace errand::agent {

// The string at a dotted path ("agent.provider"), or "" when there is none.
std::string string_setting(const boost::json::object& config, std::string_view dotted);

// The string member key of one object (a provider definition, a model entry), or "".
std::string string_member(const boost::json::object& object, std::string_view key);

}  // namespace errand::agent
