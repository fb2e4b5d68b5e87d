#pragma once

// What the launcher holds after reading the policy: the policy itself and the agent's
// environment, built from nothing, ready for execve.

#include <string>
#include <vector>

#include "common/seccomp/seccomp_filter.hpp"
#include "plugins/sandbox-bailey/common/policy.hpp"

namespace errand::bailey::launcher {

struct Prepared {
  Policy policy;
  std::vector<std::string> envp;   // "NAME=value", the whole environment of the agent
  seccomp::CompiledFilter filter;  // the plugin's, loaded by the agent's process last
};

// Writes one line to the report pipe; never fails loudly (the daemon may be gone).
void report(const std::string& line);
// Reports an error naming the failed step and errno, then exits.
[[noreturn]] void fail(const std::string& what);
[[noreturn]] void fail_errno(const std::string& what);

}  // namespace errand::bailey::launcher
