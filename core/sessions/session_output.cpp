// What the agent reports during a turn, turned into the thread's messages and the transcript.

#include "core/sessions/session.hpp"

#include <type_traits>

namespace errand::sessions {

namespace json = boost::json;

namespace {

constexpr std::string_view kWorkspace = "/workspace/";

// The agent sees the project at /workspace; the thread shows paths relative to it.
std::string shown_path(const std::string& path) {
  if (path.rfind(kWorkspace, 0) == 0) return path.substr(kWorkspace.size());
  return path;
}

chat::ToolStatus tool_status(std::string_view status) {
  if (status == "completed") return chat::ToolStatus::completed;
  if (status == "failed") return chat::ToolStatus::failed;
  if (status == "cancelled") return chat::ToolStatus::cancelled;
  return chat::ToolStatus::running;
}

bool is_final(std::string_view status) {
  return status == "completed" || status == "failed" || status == "cancelled";
}

}  // namespace

void Session::record(const json::object& entry) {
  if (!transcript_) return;
  if (auto written = transcript_->append(turn_number_, entry); !written)
    log_->warn("session {}: the transcript could not be written: {}", id(),
               written.error().message);
}

void Session::flush_turn_text() {
  if (!turn_ || turn_->text.empty()) return;
  record(json::object{{"type", "agent_text"}, {"text", turn_->text}});
  turn_->text.clear();
}

void Session::on_update(const agent::SessionUpdate& update) {
  // While a session is loaded the agent replays the old conversation; the thread has it.
  if (replaying_) return;
  std::visit(
      [&](const auto& u) {
        using T = std::decay_t<decltype(u)>;
        if constexpr (std::is_same_v<T, agent::AgentMessageChunk>) {
          if (u.content.text.empty()) return;
          if (!turn_) {
            log_->debug("session {}: agent text outside a turn was not shown", id());
            return;
          }
          turn_->text += u.content.text;
          renderer_->text(u.content.text);
        } else if constexpr (std::is_same_v<T, agent::ToolCall>) {
          on_tool_call(u);
        } else if constexpr (std::is_same_v<T, agent::ToolCallUpdate>) {
          on_tool_update(u);
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

void Session::on_tool_call(const agent::ToolCall& call) {
  flush_turn_text();
  auto& tool = tools_[call.id];
  tool.title = call.title.empty() ? call.kind : call.title;
  tool.kind = call.kind;
  tool.content = call.content;
  renderer_->tool_started({call.id, secrets_.scrub(tool.title)});
  show_diffs(tool, call.id);
  if (is_final(call.status)) finish_tool(call.id, call.status, std::nullopt);
}

void Session::on_tool_update(const agent::ToolCallUpdate& update) {
  const auto it = tools_.find(update.id);
  if (it == tools_.end()) {
    log_->debug("session {}: an update of unknown tool call {} was not shown", id(), update.id);
    return;
  }
  auto& tool = it->second;
  if (update.title) tool.title = *update.title;
  if (update.kind) tool.kind = *update.kind;
  if (update.content) tool.content = *update.content;
  show_diffs(tool, update.id);
  if (update.status && is_final(*update.status))
    finish_tool(update.id, *update.status, update.raw_output);
}

void Session::show_diffs(ToolState& tool, const std::string& id) {
  for (const auto& content : tool.content) {
    if (content.type != agent::ToolContent::Type::diff) continue;
    if (!tool.diffs_shown.insert(content.path).second) continue;
    chat::FileChange change;
    change.path = shown_path(content.path);
    change.old_text = content.old_text;
    change.new_text = content.new_text;
    renderer_->file_changed(std::move(change));
    record(json::object{{"type", "file_changed"},
                        {"tool", id},
                        {"path", shown_path(content.path)},
                        {"created", !content.old_text.has_value()}});
  }
}

void Session::finish_tool(const std::string& id, const std::string& status,
                          const std::optional<json::value>& raw_output) {
  const auto it = tools_.find(id);
  if (it == tools_.end()) return;
  const auto& tool = it->second;
  chat::ToolCallEnd end;
  end.id = id;
  end.title = secrets_.scrub(tool.title);
  end.status = tool_status(status);
  std::string output;
  if (raw_output && raw_output->is_object()) {
    const auto& raw = raw_output->as_object();
    if (const auto* code = raw.if_contains("exitCode"); code && code->is_number()) {
      json::error_code ec;
      const auto n = code->to_number<int>(ec);
      if (!ec) end.exit_code = n;
    }
    if (const auto* text = raw.if_contains("output"); text && text->is_string())
      output = std::string(text->as_string());
  }
  if (output.empty()) {
    for (const auto& content : tool.content)
      if (content.type == agent::ToolContent::Type::text) {
        if (!output.empty()) output += "\n";
        output += content.text;
      }
  }
  end.output = secrets_.scrub(output);
  json::object entry{{"type", "tool"}, {"id", id}, {"title", tool.title}, {"status", status}};
  if (end.exit_code) entry["exit_code"] = *end.exit_code;
  entry["output"] = output;
  record(entry);
  renderer_->tool_finished(std::move(end));
  tools_.erase(it);
}

}  // namespace errand::sessions
