#pragma once

// The syscall filter every agent runs under: a denylist, since the agent runs arbitrary
// toolchains, of the calls that reach kernel attack surface or undo the other layers.

#include <seccomp.h>

#include <string>
#include <vector>

namespace errand::bailey {

struct SeccompFilter {
  scmp_filter_ctx ctx = nullptr;
  std::string error;  // what could not be built, when ctx is null
};

// Builds the filter without loading it. The caller loads it last, right before execve.
SeccompFilter build_seccomp_filter();

// The names of the calls refused outright with EPERM, for the report and the tests.
const std::vector<std::string>& denied_syscall_names();

}  // namespace errand::bailey
