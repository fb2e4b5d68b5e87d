#pragma once

// What a session writes down and shows of the agent's work: the transcript every event of the
// session is recorded in, the agent's text and tool calls in the thread, and the context usage
// it last reported. The agent's text is gathered per turn, so the transcript holds each stretch
// of it as one entry between tool calls.

#include "core/agent/acp_types.hpp"
#include "core/chat/render/thread_renderer.hpp"
#include "core/chat/render/transcript.hpp"
#include "core/sessions/tool_activity.hpp"
#include "core/sessions/turn_runner.hpp"

#include <spdlog/logger.h>
#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>

namespace errand::sessions {

class SessionOutput {
 public:
  SessionOutput(TurnRunner& turns, std::shared_ptr<spdlog::logger> log, std::string session_id);

  // Until the transcript is opened, entries are not kept (a start that failed before it).
  void open_transcript(chat::TranscriptWriter transcript);
  bool has_transcript() const noexcept { return transcript_.has_value(); }
  // Where the agent's text and tool calls are shown once the thread has a renderer.
  void show_in(chat::ThreadRenderer& renderer);

  void record(const boost::json::object& entry);
  // The agent's text of the running turn so far, recorded as one entry.
  void flush_turn_text();
  void on_update(const agent::SessionUpdate& update);
  // While a conversation is loaded the agent replays it; the thread already has it.
  void set_replaying(bool replaying) noexcept { replaying_ = replaying; }

  const std::optional<agent::UsageUpdate>& usage() const noexcept { return usage_; }
  // The title of the tool call that began last and still runs; empty: none.
  std::string latest_running_tool() const;

 private:
  TurnRunner& turns_;  // whose running turn the agent's text belongs to
  std::shared_ptr<spdlog::logger> log_;
  std::string session_id_;
  std::optional<chat::TranscriptWriter> transcript_;
  chat::ThreadRenderer* renderer_ = nullptr;
  std::optional<ToolActivity> tools_;  // made with the renderer it reports to
  std::optional<agent::UsageUpdate> usage_;
  bool replaying_ = false;
};

}  // namespace errand::sessions
