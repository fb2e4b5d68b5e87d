#include "core/sessions/session_report.hpp"

#include <fmt/format.h>

namespace errand::sessions {

std::string session_status_text(const SessionFacts& facts, const SessionServices& services) {
  const auto& plan = facts.plan;
  std::string text = fmt::format("session `{}` in project `{}` ({})", plan.session_id,
                                 plan.project_name, plan.project_dir.string());
  text += fmt::format("\nmodel: {}", facts.model.empty() ? std::string("the configured default")
                                                         : "`" + facts.model + "`");
  switch (facts.phase) {
    case SessionPhase::starting: text += "\nstarting"; break;
    case SessionPhase::stopping:
    case SessionPhase::ended: text += "\nstopping"; break;
    case SessionPhase::ready:
      text += facts.turns.running() ? "\na turn is running" : "\nidle, waiting for a prompt";
      break;
  }
  if (facts.turns.queued() > 0)
    text += fmt::format("\n{} prompt(s) of this thread waiting", facts.turns.queued());
  const auto queue = services.queue.snapshot();
  text += fmt::format("\nturn slots: {} of {} in use, {} waiting in the queue",
                      queue.turns_in_flight, queue.limits.max_concurrent_turns, queue.queued);
  if (queue.paused_until) text += "\n" + pause_sentence(queue, services.clock.now());
  const auto& usage = facts.output.usage();
  if (usage && usage->size > 0)
    text += fmt::format("\ncontext: {} of {} tokens used", usage->used, usage->size);
  if (usage && usage->cost_amount)
    text += fmt::format("\ncost so far: {:.4f} {}", *usage->cost_amount, usage->cost_currency);
  if (const auto delegated = services.delegates->stats(plan.session_id))
    text += "\n" + describe_delegates(*delegated);
  return text;
}

LiveSession describe_live_session(const SessionFacts& facts) {
  const auto& plan = facts.plan;
  LiveSession live;
  live.session_id = plan.session_id;
  live.thread_id = !plan.thread_id.empty() ? plan.thread_id
                   : plan.opening          ? plan.opening->message_id
                                           : std::string();
  live.project = plan.project_name;
  live.owner_id = plan.owner_id;
  live.model = facts.model;
  live.started_at = facts.created_at;
  switch (facts.phase) {
    case SessionPhase::starting: live.state = LiveSession::State::starting; break;
    case SessionPhase::stopping:
    case SessionPhase::ended: live.state = LiveSession::State::stopping; break;
    case SessionPhase::ready:
      if (facts.turns.running()) {
        live.state = LiveSession::State::running;
      } else if (const auto position = facts.turns.queue_position()) {
        live.state = LiveSession::State::queued;
        live.queue_position = position;
      } else {
        live.state = LiveSession::State::idle;
      }
      break;
  }
  if (live.state == LiveSession::State::running) {
    const std::string tool = facts.output.latest_running_tool();
    live.doing = tool.empty() ? "thinking" : "running " + tool;
    if (const auto* turn = facts.turns.current()) {
      const std::string_view text = turn->text;
      // Cut where a UTF-8 sequence begins, so the page never gets half a character.
      std::size_t from =
          text.size() > kMaxPartialTextBytes ? text.size() - kMaxPartialTextBytes : 0;
      while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
      live.partial_text = std::string(text.substr(from));
    }
  }
  if (const auto* question = facts.permissions.open_question()) {
    live.question = question->title;
    for (const auto& option : question->options)
      live.question_options.push_back({option.id, option.name});
  }
  return live;
}

}  // namespace errand::sessions
