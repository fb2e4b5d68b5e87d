// What the agent reports during a turn, turned into the thread's messages and the transcript;
// its tool calls are ToolActivity's.

#include "core/sessions/session.hpp"

#include <type_traits>

namespace errand::sessions {

namespace json = boost::json;

void Session::record(const json::object& entry) {
  if (!transcript_) return;
  if (auto written = transcript_->append(turns_.turn_number(), entry); !written)
    log_->warn("session {}: the transcript could not be written: {}", id(),
               written.error().message);
}

void Session::flush_turn_text() {
  auto* turn = turns_.current();
  if (!turn || turn->text.empty()) return;
  record(json::object{{"type", "agent_text"}, {"text", turn->text}});
  turn->text.clear();
}

void Session::on_update(const agent::SessionUpdate& update) {
  // While a session is loaded the agent replays the old conversation; the thread has it.
  if (replaying_) return;
  std::visit(
      [&](const auto& u) {
        using T = std::decay_t<decltype(u)>;
        if constexpr (std::is_same_v<T, agent::AgentMessageChunk>) {
          if (u.content.text.empty()) return;
          auto* turn = turns_.current();
          if (!turn) {
            log_->debug("session {}: agent text outside a turn was not shown", id());
            return;
          }
          turn->text += u.content.text;
          renderer_->text(u.content.text);
        } else if constexpr (std::is_same_v<T, agent::ToolCall>) {
          flush_turn_text();
          tools_->started(u);
        } else if constexpr (std::is_same_v<T, agent::ToolCallUpdate>) {
          if (!tools_->updated(u))
            log_->debug("session {}: an update of unknown tool call {} was not shown", id(), u.id);
        } else if constexpr (std::is_same_v<T, agent::UsageUpdate>) {
          usage_ = u;
        } else if constexpr (std::is_same_v<T, agent::Plan>) {
          json::array entries;
          for (const auto& e : u.entries)
            entries.push_back(json::object{{"content", e.content}, {"status", e.status}});
          record(json::object{{"type", "plan"}, {"entries", std::move(entries)}});
        } else if constexpr (std::is_same_v<T, agent::OtherUpdate>) {
          log_->debug("session {}: update {} not shown", id(), u.kind);
        }
      },
      update.update);
}

}  // namespace errand::sessions
