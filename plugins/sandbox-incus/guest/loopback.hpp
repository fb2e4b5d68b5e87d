#pragma once

// incusd may run the exec before the guest's systemd has set up the loopback (it does so early in
// its boot, but the exec can come earlier still), and an interface of a fresh network namespace
// starts down, without 127.0.0.1. The relay listens there and the agent expects its own
// loopback, so the init brings it up first; the kernel gives it 127.0.0.1 and ::1 as it comes up,
// and systemd finds it already up. Root of the container's user namespace owns its network
// namespace, so it may.

#include <errand/sdk/result.hpp>

namespace errand::incus::guest {

// Sets IFF_UP on lo; a no-op when it is up. The error names the step and the errno.
sdk::Result<void> bring_up_loopback();

}  // namespace errand::incus::guest
