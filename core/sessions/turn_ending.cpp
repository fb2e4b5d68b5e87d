#include "core/sessions/turn_ending.hpp"

namespace errand::sessions {

namespace {

TurnVerdict failed(std::string detail) {
  return {TurnOutcome::failed, {chat::TurnEnding::failed, std::move(detail)}};
}

}  // namespace

TurnVerdict turn_verdict(const sdk::Result<agent::TurnEnd>& result) {
  if (!result) return failed(result.error().message);
  switch (result->stop_reason) {
    case agent::StopReason::end_turn:
    case agent::StopReason::other: return {TurnOutcome::completed, {chat::TurnEnding::done, {}}};
    case agent::StopReason::cancelled:
      return {TurnOutcome::cancelled, {chat::TurnEnding::stopped, "the turn was interrupted"}};
    case agent::StopReason::max_tokens:
      return failed("the model reached its output limit before it finished");
    case agent::StopReason::max_turn_requests:
      return failed("the agent reached its limit of model requests for one turn");
    case agent::StopReason::refusal: return failed("the model refused to continue");
  }
  return failed("the agent ended the turn with a stop reason errand does not know");
}

TurnVerdict stopped_turn_verdict(TurnOutcome outcome, const std::string& reason) {
  return {outcome, {chat::TurnEnding::stopped, "the session was stopped (" + reason + ")"}};
}

}  // namespace errand::sessions
