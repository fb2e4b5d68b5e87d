#pragma once

// What one live session says of itself: the `!status` answer in its thread and the entry the
// web interface lists. Both are taken on the session's strand from the facts below.

#include "core/sessions/live_sessions.hpp"
#include "core/sessions/permission_gate.hpp"
#include "core/sessions/session_output.hpp"
#include "core/sessions/session_services.hpp"
#include "core/sessions/turn_runner.hpp"

#include <chrono>
#include <string>

namespace errand::sessions {

enum class SessionPhase { starting, ready, stopping, ended };

struct SessionFacts {
  const SessionPlan& plan;
  SessionPhase phase;
  const std::string& model;  // empty: the configured default
  std::chrono::system_clock::time_point created_at;
  const TurnRunner& turns;
  const SessionOutput& output;
  const PermissionGate& permissions;
};

// The `!status` answer: the session, its model and state, the daemon's turn slots, and what
// the session has used so far.
std::string session_status_text(const SessionFacts& facts, const SessionServices& services);

LiveSession describe_live_session(const SessionFacts& facts);

}  // namespace errand::sessions
