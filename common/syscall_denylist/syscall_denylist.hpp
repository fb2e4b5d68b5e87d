#pragma once

// The system calls every sandbox backend refuses a session with EPERM, whatever else its own
// confinement allows: bailey builds its seccomp filter from this list, podman moves these calls
// out of podman's default profile into a refusing rule. One list, so the two backends cannot
// drift apart. Only the standard library, so bailey's static launcher can link it.

#include <string>
#include <vector>

namespace errand::sandbox_rules {

const std::vector<std::string>& denied_syscall_names();

}  // namespace errand::sandbox_rules
