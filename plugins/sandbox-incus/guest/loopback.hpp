#pragma once

// The guest's loopback, up before the relay listens on it. incusd answers the start of an
// instance before the guest's systemd has brought `lo` up (PID 1 may still be LXC's own init
// then), and the exec runs at once: until systemd gets there, every connection to 127.0.0.1,
// the relay's included, fails with ENETUNREACH. Root of the container owns its network
// namespace, so the init raises the flag itself; systemd's later setup finds it up.

#include <errand/sdk/result.hpp>

namespace errand::incus::guest {

// IFF_UP on lo; the error names the step and the errno.
sdk::Result<void> bring_up_loopback();

}  // namespace errand::incus::guest
