#pragma once

// sandbox.egress.allowInternal, checked when the policy is built: every entry must parse as an
// address range (common/address_ranges, the parser the broker judges addresses with), so a
// bad range is refused at validation rather than when a session's broker opens.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

namespace errand::sandbox {

// The ranges as written, each one accepted by the parser; an error names the key.
sdk::Result<std::vector<std::string>> allow_internal_setting(const boost::json::object& config);

}  // namespace errand::sandbox
