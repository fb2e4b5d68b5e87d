// Usage windows and agent.fallback on the manager's side: judging a provider spent from what it
// reported and from the queue's pauses, choosing where a new session starts, and telling the
// sessions already running on a provider that became spent.

#include "core/sessions/fallback_start.hpp"
#include "core/sessions/session_manager.hpp"

namespace errand::sessions {

std::optional<SpentWindow> SessionManager::spent_now(std::string_view provider) const {
  const auto queue = services_->queue.snapshot();
  ProviderState state;
  if (const auto it = usage_.find(std::string(provider)); it != usage_.end())
    state.usage = &it->second;
  if (const auto it = queue.pause_ends.find(provider); it != queue.pause_ends.end())
    state.paused_until = it->second;
  return spent_window(provider, state, queue.limits.max_queue_wait, services_->clock.now());
}

void SessionManager::choose_start_provider(SessionPlan& plan) const {
  auto choice = choose_start(*settings_.config,
                             [this](std::string_view provider) { return spent_now(provider); });
  if (!choice.notice.empty()) log_->info("session {}: {}", plan.session_id, choice.notice);
  plan.provider = std::move(choice.provider);
  if (!choice.model.empty()) plan.model = std::move(choice.model);
  plan.start_notice = std::move(choice.notice);
}

void SessionManager::restore_start_provider(SessionPlan& plan,
                                            std::string_view recorded_model) const {
  auto restored = restore_thread_model(*settings_.config, recorded_model);
  plan.provider = std::move(restored.provider);
  plan.model = std::move(restored.model);
}

void SessionManager::tell_if_spent(const std::string& provider) {
  const auto spent = spent_now(provider);
  if (!spent) return;
  const auto now = services_->clock.now();
  for (const auto& [session_id, session] : sessions_) {
    if (session->provider() != provider) continue;
    if (!spent_notices_.should_tell(session_id, *spent, now)) continue;
    session->tell(spent_clause(*spent) +
                  "; this session keeps its model, and its owner may switch with `!model`");
  }
}

}  // namespace errand::sessions
