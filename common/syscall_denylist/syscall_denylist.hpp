#pragma once

// The system calls every sandbox backend refuses a session with EPERM, whatever else its own
// confinement allows: bailey builds its seccomp filter from this list, podman moves these calls
// out of podman's default profile into a refusing rule. One list, so the two backends cannot
// drift apart. Only the standard library and the kernel's headers, so bailey's static launcher
// can link it. The socket families and terminal ioctls below are refused by all three backends,
// Incus included (its guests keep the namespace and mount calls above for Docker and podman).

#include <string>
#include <vector>

namespace errand::sandbox_rules {

const std::vector<std::string>& denied_syscall_names();

// The socket families a session may create: unix, IPv4, IPv6 and netlink. Every backend refuses
// the others with EAFNOSUPPORT: vsock ignores network namespaces and reaches the host's and other
// guests' services, packet sockets see raw frames, and the rare rest is kernel code loaded as a
// module on first use that no session needs.
const std::vector<int>& allowed_socket_families();

// The other families as a filter can compare them: a filter rule tests one argument against one
// value, so the refused families below the highest allowed one are listed, and every family
// above `highest` is refused by one greater-than rule.
struct RefusedSocketFamilies {
  std::vector<int> listed;
  int highest = 0;  // the highest allowed family
};
const RefusedSocketFamilies& refused_socket_families();

// The terminal ioctl requests every backend refuses with EPERM: TIOCSTI and TIOCLINUX push input
// into a terminal, TIOCSETD loads a line discipline, kernel code few systems ever exercise.
const std::vector<unsigned long>& refused_terminal_ioctls();

}  // namespace errand::sandbox_rules
