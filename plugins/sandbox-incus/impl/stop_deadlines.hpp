#pragma once

// How long each step of stopping an Incus session may take, past the session's grace, before it
// is escalated (common/stop_deadline.hpp): in one place, so the steps stay consistent.

#include <chrono>

namespace errand::incus {

using namespace std::chrono_literals;

// Sending SIGTERM is one small websocket message on the exec's control connection; incusd that
// has not taken it in this long is stuck, and the stop goes on to closing that connection.
inline constexpr std::chrono::milliseconds kSignalDeadline = 5s;

// After the control connection is closed, incusd kills errand-guest-init at once (and the agent
// with it, by its parent-death signal); this long without an exit status means incusd itself is
// stuck, and the instance is stopped under it by force.
inline constexpr std::chrono::milliseconds kEndAfterKillDeadline = 5s;

// Each request of the forced stop and delete (the REST state change with force, then a delete):
// a forced stop of an instance takes a second or two even on a loaded host. Shorter than the
// client's default, which also covers creating an instance from an image not yet unpacked.
inline constexpr std::chrono::milliseconds kForceStopRequestDeadline = 30s;

// After the forced stop, the exec's operation ends and its exit status comes; without it this
// long later, the stop returns without it, saying so, rather than wait on incusd for ever.
inline constexpr std::chrono::milliseconds kEndAfterForceStopDeadline = 15s;

}  // namespace errand::incus
