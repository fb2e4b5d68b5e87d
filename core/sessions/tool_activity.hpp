#pragma once

// The tools the agent runs during a turn: what each call is (its title, kind and content as the
// agent last reported them), which of its file changes the thread has already been shown, and
// what the thread and the transcript get when it starts, changes and finishes. Secrets are not
// its business: the renderer and the transcript writer scrub what they are given.

#include "core/agent/session_update.hpp"
#include "core/chat/render/thread_renderer.hpp"

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace errand::sessions {

// A diff longer than this is cut in the transcript; the thread has its own limits.
inline constexpr std::size_t kMaxRecordedDiffBytes = 64 * 1024;

class ToolActivity {
 public:
  // record writes one transcript entry; the session owns the transcript and its error handling.
  using Record = std::function<void(const boost::json::object& entry)>;

  ToolActivity(chat::ThreadRenderer& renderer, Record record)
      : renderer_(renderer), record_(std::move(record)) {}

  void started(const agent::ToolCall& call);
  // An update of a call never started is ignored and reported as false.
  bool updated(const agent::ToolCallUpdate& update);
  std::size_t running() const noexcept { return tools_.size(); }
  // The title of the tool call started last among those still running; empty when none runs.
  const std::string& latest_running_title() const noexcept;

 private:
  struct Tool {
    std::string title;
    std::string kind;
    std::vector<agent::ToolContent> content;
    std::set<std::string> diffs_shown;  // paths whose change the thread has
  };

  void show_diffs(Tool& tool, const std::string& id);
  void finish(const std::string& id, const std::string& status,
              const std::optional<boost::json::value>& raw_output);

  chat::ThreadRenderer& renderer_;
  Record record_;
  std::map<std::string, Tool> tools_;
  std::vector<std::string> started_order_;  // ids of running calls, oldest first
};

}  // namespace errand::sessions
