#pragma once

// policy.toml: written by the plugin into the record directory, read back by the launcher.

#include <optional>
#include <string>
#include <string_view>

#include "plugins/sandbox-bailey/common/policy.hpp"

namespace errand::bailey {

std::string render_policy(const Policy& policy);

struct PolicyParse {
  std::optional<Policy> policy;
  std::string error;  // says which key is wrong and why, when policy is empty
};

// Refuses anything the launcher could not enforce as written: unknown network plans, relative
// paths, malformed variable names.
PolicyParse parse_policy(std::string_view text);

}  // namespace errand::bailey
