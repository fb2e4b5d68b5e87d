#pragma once

// The Landlock rule set a policy turns into on a given ABI, computed without touching the
// kernel so it can be tested for ABIs this host does not run. The launcher adds exactly these.

#include <cstdint>
#include <string>
#include <vector>

#include "common/landlock/landlock_abi.hpp"
#include "plugins/sandbox-bailey/common/policy.hpp"

namespace errand::bailey::landlock {

// bailey's rules are written in the kernel ABI's terms (common/landlock), as its own.
using namespace errand::landlock;

struct PathRule {
  std::string path;  // inside the sandbox
  // Rights for the path as a directory; narrowed to file_rights() when it is not one.
  std::uint64_t rights = 0;
};

struct PortRule {
  std::uint64_t port = 0;
  std::uint64_t rights = 0;
};

struct RuleSet {
  RulesetAttr handled;
  std::vector<PathRule> paths;  // in policy order, each path once, none without a right
  std::vector<PortRule> ports;
};

// Under the broker and with no network the session's namespace holds nothing but loopback, so
// everything it can bind or connect to over TCP is its own: Landlock handles no TCP right there.
bool namespace_bounds_tcp(NetworkPlan plan) noexcept;

// abi is the running kernel's; rights newer than kNewestKnownAbi are not handled.
RuleSet rules_for(const Policy& policy, int abi);

}  // namespace errand::bailey::landlock
