#include "core/sessions/session_output.hpp"

#include <type_traits>

namespace errand::sessions {

namespace json = boost::json;

SessionOutput::SessionOutput(TurnRunner& turns, std::shared_ptr<spdlog::logger> log,
                             std::string session_id)
    : turns_(turns), log_(std::move(log)), session_id_(std::move(session_id)) {}

void SessionOutput::open_transcript(chat::TranscriptWriter transcript) {
  transcript_.emplace(std::move(transcript));
}

void SessionOutput::show_in(chat::ThreadRenderer& renderer) {
  renderer_ = &renderer;
  tools_.emplace(renderer, [this](const json::object& entry) { record(entry); });
}

void SessionOutput::record(const json::object& entry) {
  if (!transcript_) return;
  if (auto written = transcript_->append(turns_.turn_number(), entry); !written)
    log_->warn("session {}: the transcript could not be written: {}", session_id_,
               written.error().message);
}

void SessionOutput::flush_turn_text() {
  auto* turn = turns_.current();
  if (!turn || turn->text.empty()) return;
  record(json::object{{"type", "agent_text"}, {"text", turn->text}});
  turn->text.clear();
}

std::string SessionOutput::latest_running_tool() const {
  return tools_ ? tools_->latest_running_title() : std::string();
}

void SessionOutput::on_update(const agent::SessionUpdate& update) {
  if (replaying_) return;
  std::visit(
      [&](const auto& u) {
        using T = std::decay_t<decltype(u)>;
        if constexpr (std::is_same_v<T, agent::AgentMessageChunk>) {
          if (u.content.text.empty()) return;
          auto* turn = turns_.current();
          if (!turn) {
            log_->debug("session {}: agent text outside a turn was not shown", session_id_);
            return;
          }
          turn->text += u.content.text;
          renderer_->text(u.content.text);
        } else if constexpr (std::is_same_v<T, agent::ToolCall>) {
          flush_turn_text();
          tools_->started(u);
        } else if constexpr (std::is_same_v<T, agent::ToolCallUpdate>) {
          if (!tools_->updated(u))
            log_->debug("session {}: an update of unknown tool call {} was not shown", session_id_,
                        u.id);
        } else if constexpr (std::is_same_v<T, agent::UsageUpdate>) {
          usage_ = u;
        } else if constexpr (std::is_same_v<T, agent::Plan>) {
          json::array entries;
          for (const auto& e : u.entries)
            entries.push_back(json::object{{"content", e.content}, {"status", e.status}});
          record(json::object{{"type", "plan"}, {"entries", std::move(entries)}});
        } else if constexpr (std::is_same_v<T, agent::OtherUpdate>) {
          log_->debug("session {}: update {} not shown", session_id_, u.kind);
        }
      },
      update.update);
}

}  // namespace errand::sessions
