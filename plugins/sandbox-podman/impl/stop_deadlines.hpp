#pragma once

// How long each step of stopping a podman session may take before it is escalated
// (common/stop_deadline.hpp): in one place, so the steps stay consistent with one another and the
// worst case of a whole stop is the sum of these and the session's grace.

#include <chrono>

namespace errand::podman {

using namespace std::chrono_literals;

// One podman command (inspect, kill, rm). On an idle host these take well under a second; a cold,
// loaded 2-core host has been seen to take several, and a podman that has not answered in this
// long is stuck on its own locks, not slow.
inline constexpr std::chrono::milliseconds kPodmanCommandDeadline = 30s;

// A stop asked while `podman start` is still starting the container waits this long for it to
// run: a stop that reached podman before the container ran would be a no-op, and the agent would
// then start and run unstopped (what hung the live stop test for CTest's whole 600 s). Starting a
// container has been seen to take seconds on a loaded host; longer means podman start is stuck.
inline constexpr std::chrono::milliseconds kStillStartingDeadline = 30s;

// After SIGKILL the container's PID 1 dies at once and conmon reports it; `podman start --attach`
// then ends. This long without that end means podman or conmon is stuck, and the container is
// removed by force, then podman start's process group is killed.
inline constexpr std::chrono::milliseconds kEndAfterKillDeadline = 15s;

// Removing what is left once podman start has ended (podman rm --force): a container that is
// still running is stopped first, which podman gives 10 s, so this leaves room for that.
inline constexpr std::chrono::milliseconds kRemoveDeadline = 60s;

}  // namespace errand::podman
