#pragma once

// How a turn that reached the agent ended, as threads.db records it and the thread is told:
// from the agent's stop reason, its error, or the session's stop that cut the turn short.

#include "core/agent/acp_types.hpp"
#include "core/chat/render/thread_renderer.hpp"
#include "core/threads/threads_db.hpp"

#include <errand/sdk/result.hpp>

namespace errand::sessions {

struct TurnVerdict {
  TurnOutcome outcome = TurnOutcome::failed;
  chat::TurnEnd ending;
};

TurnVerdict turn_verdict(const sdk::Result<agent::TurnEnd>& result);
// The session was stopped (for reason) while the turn ran; outcome is what the stop said the
// running turn becomes.
TurnVerdict stopped_turn_verdict(TurnOutcome outcome, const std::string& reason);

}  // namespace errand::sessions
