#pragma once

// How the policy tests break one thing in a good policy.toml: the first occurrence of a piece of
// text replaced, then the file parsed as the launcher would.

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "plugins/sandbox-bailey/common/policy_toml.hpp"

namespace errand::bailey::test {

inline sdk::Result<Policy> parse_edited(std::string text, const std::string& from,
                                        const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return parse_policy(text);
}

}  // namespace errand::bailey::test
