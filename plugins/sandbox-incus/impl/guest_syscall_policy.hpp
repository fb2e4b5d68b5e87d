#pragma once

// errand's own system-call rules for an Incus guest, written in LXC's seccomp policy language and
// handed to incusd as the instance's security.syscalls.deny. incusd appends them to its default
// policy, and LXC loads the result into the guest's first process before it execs systemd and
// into every process incusd execs in the guest: so they hold for everything the guest runs,
// services that guest root starts included, which a filter loaded by errand-guest-init on the
// agent's tree alone could not promise.
//
// The scope is a system container's: the namespace and mount calls stay, since Docker and
// rootless podman inside are made of them. Refused: socket families other than unix, IPv4, IPv6
// and netlink; io_uring (its ring performs operations no filter sees); perf_event_open, bpf and
// userfaultfd; the keyring calls; modify_ldt; and the terminal injection ioctls.

#include <string>

namespace errand::incus {

// The policy text, one rule a line, beginning with the [all] section header so the rules apply
// to every architecture LXC loads the policy for, whatever incusd put before them.
std::string guest_syscall_policy();

}  // namespace errand::incus
