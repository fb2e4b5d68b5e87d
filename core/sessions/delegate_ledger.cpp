#include "core/sessions/delegate_ledger.hpp"

#include <fmt/format.h>

namespace errand::sessions {

std::uint64_t estimated_tokens(std::uint64_t characters) {
  return (characters + 3) / 4;
}

void DelegateTally::add(const sdk::DelegateReport& report, std::optional<double> cost_of_call) {
  if (report.outcome == sdk::DelegateReport::Outcome::answered) ++answered;
  if (report.input_tokens || report.output_tokens) tokens_reported = true;
  input_tokens += report.input_tokens.value_or(0);
  output_tokens += report.output_tokens.value_or(0);
  if (cost_of_call) {
    cost += *cost_of_call;
    cost_known = true;
  }
  artefact_chars += report.artefact_chars;
}

namespace {

// The tally after its call count, which the turn and the session word differently.
std::string describe_tally(const DelegateTally& tally) {
  if (tally.calls == 0) return {};
  std::string text;
  if (tally.answered != tally.calls) text += fmt::format(" ({} answered)", tally.answered);
  text += tally.tokens_reported
              ? fmt::format(", {} tokens in and {} out", tally.input_tokens, tally.output_tokens)
              : std::string(", tokens not reported");
  text += tally.cost_known ? fmt::format(", cost {:.4f} USD", tally.cost)
                           : std::string(", cost unknown");
  text += fmt::format(", {} characters (about {} tokens) kept out of the context",
                      tally.artefact_chars, estimated_tokens(tally.artefact_chars));
  return text;
}

}  // namespace

std::string describe_delegates(const DelegateStats& stats) {
  return fmt::format("delegate, this turn: {} of {} calls{}\ndelegate, this session: {} call{}{}",
                     stats.turn.calls, stats.per_turn, describe_tally(stats.turn),
                     stats.session.calls, stats.session.calls == 1 ? "" : "s",
                     describe_tally(stats.session));
}

void DelegateLedger::open(const std::string& session_id, std::uint32_t per_turn) {
  std::lock_guard lock(mutex_);
  sessions_[session_id].stats.per_turn = per_turn;
}

void DelegateLedger::close(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  sessions_.erase(session_id);
}

void DelegateLedger::turn_started(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session_id);
  if (found == sessions_.end()) return;
  found->second.turn_running = true;
  found->second.stats.turn = {};
}

void DelegateLedger::turn_ended(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session_id);
  if (found != sessions_.end()) found->second.turn_running = false;
}

std::string DelegateLedger::admit(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session_id);
  if (found == sessions_.end())
    return "delegate is not enabled for this session (agent.delegate is not configured)";
  auto& entry = found->second;
  if (!entry.turn_running)
    return "delegate answers only while a turn runs; this session is between turns";
  if (entry.stats.turn.calls >= entry.stats.per_turn)
    return fmt::format(
        "this turn has already made its {} delegate calls (agent.delegate.perTurn); work from "
        "the answers you have, or read the artefact yourself",
        entry.stats.per_turn);
  ++entry.stats.turn.calls;
  ++entry.stats.session.calls;
  return {};
}

void DelegateLedger::finish(const sdk::DelegateReport& report, std::optional<double> cost_of_call) {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(report.session_id);
  if (found == sessions_.end()) return;
  found->second.stats.session.add(report, cost_of_call);
  found->second.stats.turn.add(report, cost_of_call);
}

std::optional<DelegateStats> DelegateLedger::stats(const std::string& session_id) const {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session_id);
  if (found == sessions_.end()) return std::nullopt;
  return found->second.stats;
}

}  // namespace errand::sessions
