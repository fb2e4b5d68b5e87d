#pragma once

// The syscall filter every agent runs under: a denylist, since the agent runs arbitrary
// toolchains, of the calls that reach kernel attack surface or undo the other layers.

#include <seccomp.h>

#include <string>
#include <vector>

namespace errand::bailey {

struct SeccompFilter {
  scmp_filter_ctx ctx = nullptr;
  // The highest syscall number this build knows; every number above it answers ENOSYS, so a
  // call added to the kernel after this build is refused rather than allowed unseen.
  int highest_known = 0;
  std::string error;  // what could not be built, when ctx is null
};

// Builds the filter without loading it. The caller loads it last, right before execve.
SeccompFilter build_seccomp_filter();

// Loads what build_seccomp_filter built. Returns 0, or the negative errno of the failure.
int load_seccomp_filter(const SeccompFilter& filter);

// The highest syscall number of the native architecture libseccomp can name.
int highest_known_syscall();

// The socket families an agent may create; socket() and socketpair() of any other family
// answer EAFNOSUPPORT.
const std::vector<int>& allowed_socket_families();

// The names of the calls refused outright with EPERM, for the report and the tests.
const std::vector<std::string>& denied_syscall_names();

}  // namespace errand::bailey
