#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <errand/sdk/result.hpp>

namespace errand::chat {

// The output.* settings a thread renderer follows. A session keeps the ones it started with.
struct RenderSettings {
  bool forward_tool_output = false;
  std::size_t max_tool_output_chars = 1500;
  bool post_diffs = true;
  // The agent's text, tool calls and file changes are posted. Without a chat service the web
  // interface shows them from the transcript, so its thread carries only errand's own words
  // (answers, notices, the end of each turn).
  bool post_agent_output = true;
};

// Reads output.forwardToolOutput, output.maxToolOutputChars and output.postDiffs from the
// effective configuration; an absent key keeps its documented default.
sdk::Result<RenderSettings> render_settings_from_config(const boost::json::object& config);

}  // namespace errand::chat
