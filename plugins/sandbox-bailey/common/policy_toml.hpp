#pragma once

// policy.toml: written by the plugin into the record directory, read back by the launcher.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

#include "plugins/sandbox-bailey/common/policy.hpp"

namespace errand::bailey {

std::string render_policy(const Policy& policy);

// Refuses anything the launcher could not enforce as written: unknown network plans, relative
// paths, malformed variable names. The refusal says which key is wrong and why.
sdk::Result<Policy> parse_policy(std::string_view text);

}  // namespace errand::bailey
