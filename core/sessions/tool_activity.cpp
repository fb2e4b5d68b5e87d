#include "core/sessions/tool_activity.hpp"

#include "core/chat/render/unified_diff.hpp"

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

const std::string& ToolActivity::latest_running_title() const noexcept {
  static const std::string none;
  for (auto it = started_order_.rbegin(); it != started_order_.rend(); ++it)
    if (const auto found = tools_.find(*it); found != tools_.end()) return found->second.title;
  return none;
}

void ToolActivity::started(const agent::ToolCall& call) {
  if (tools_.count(call.id) == 0) started_order_.push_back(call.id);
  auto& tool = tools_[call.id];
  tool.title = call.title.empty() ? call.kind : call.title;
  tool.kind = call.kind;
  tool.content = call.content;
  renderer_.tool_started({call.id, tool.title});
  show_diffs(tool, call.id);
  if (is_final(call.status)) finish(call.id, call.status, std::nullopt);
}

bool ToolActivity::updated(const agent::ToolCallUpdate& update) {
  const auto it = tools_.find(update.id);
  if (it == tools_.end()) return false;
  auto& tool = it->second;
  if (update.title) tool.title = *update.title;
  if (update.kind) tool.kind = *update.kind;
  if (update.content) tool.content = *update.content;
  show_diffs(tool, update.id);
  if (update.status && is_final(*update.status))
    finish(update.id, *update.status, update.raw_output);
  return true;
}

void ToolActivity::show_diffs(Tool& tool, const std::string& id) {
  for (const auto& content : tool.content) {
    if (content.type != agent::ToolContent::Type::diff) continue;
    if (!tool.diffs_shown.insert(content.path).second) continue;
    chat::FileChange change;
    change.path = shown_path(content.path);
    change.old_text = content.old_text;
    change.new_text = content.new_text;
    renderer_.file_changed(std::move(change));
    // The transcript keeps the change as a diff, so the web interface can show it as one.
    auto diff = chat::unified_diff(content.old_text, content.new_text);
    if (diff.text.size() > kMaxRecordedDiffBytes) {
      diff.text.resize(kMaxRecordedDiffBytes);
      diff.text += "\n[the rest of the diff is not recorded]\n";
    }
    record_(json::object{{"type", "file_changed"},
                         {"tool", id},
                         {"path", shown_path(content.path)},
                         {"created", !content.old_text.has_value()},
                         {"added", diff.added},
                         {"removed", diff.removed},
                         {"diff", std::move(diff.text)}});
  }
}

void ToolActivity::finish(const std::string& id, const std::string& status,
                          const std::optional<json::value>& raw_output) {
  const auto it = tools_.find(id);
  if (it == tools_.end()) return;
  const auto& tool = it->second;
  chat::ToolCallEnd end;
  end.id = id;
  end.title = tool.title;
  end.status = tool_status(status);
  if (raw_output && raw_output->is_object()) {
    const auto& raw = raw_output->as_object();
    if (const auto* code = raw.if_contains("exitCode"); code && code->is_number()) {
      json::error_code ec;
      const auto n = code->to_number<int>(ec);
      if (!ec) end.exit_code = n;
    }
    if (const auto* text = raw.if_contains("output"); text && text->is_string())
      end.output = std::string(text->as_string());
  }
  if (end.output.empty()) {
    for (const auto& content : tool.content)
      if (content.type == agent::ToolContent::Type::text) {
        if (!end.output.empty()) end.output += "\n";
        end.output += content.text;
      }
  }
  json::object entry{{"type", "tool"}, {"id", id}, {"title", tool.title}, {"status", status}};
  if (end.exit_code) entry["exit_code"] = *end.exit_code;
  entry["output"] = end.output;
  record_(entry);
  renderer_.tool_finished(std::move(end));
  tools_.erase(it);
  std::erase(started_order_, id);
}

}  // namespace errand::sessions
