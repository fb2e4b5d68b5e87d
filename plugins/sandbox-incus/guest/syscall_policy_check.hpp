#pragma once

// The init's own look at the guest's system-call policy before the agent starts: incusd is asked
// for errand's rules (impl/guest_syscall_policy.hpp), and an instance made some other way, or an
// incusd that dropped them, would run the agent under Incus's policy alone. Three calls that
// errand's rules refuse and the kernel would answer otherwise, none with an effect: io_uring_setup
// with no parameters (EPERM from the rules, EFAULT from the kernel), a vsock socket
// (EAFNOSUPPORT, where the kernel makes one), and TIOCSTI on no descriptor (EPERM, where the
// kernel says EBADF).

#include <errand/sdk/result.hpp>

namespace errand::incus::guest {

// Nothing, or an error naming the call the guest let through and what the kernel answered.
sdk::Result<void> check_syscall_policy();

}  // namespace errand::incus::guest
