#pragma once

// The resource limits errand-guest-init sets on itself before it starts anything, so the relay
// and the agent inherit them: incusd's limits.kernel.* reach only the guest's own init, never a
// process exec'd into it. Lowering a hard limit is allowed to root of the guest's user namespace,
// and raising one again needs CAP_SYS_RESOURCE in the host's, so the agent's sudo cannot undo
// them. The same three podman's --ulimit sets for its sessions.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>

namespace errand::incus::guest {

// Open files: the hard limit the exec inherited, at most this many.
inline constexpr std::uint64_t kSessionNofile = 65536;

// Core dumps off (they would write the agent's memory, secrets and all, into the workspace),
// nofile soft and hard at kSessionNofile or the inherited hard limit if that is lower, and, when
// given, RLIMIT_FSIZE soft and hard at file_max bytes (a write past it raises SIGXFSZ, or fails
// with EFBIG where that signal is ignored). The error names the limit and the errno.
sdk::Result<void> apply_session_limits(std::optional<std::uint64_t> file_max);

}  // namespace errand::incus::guest
