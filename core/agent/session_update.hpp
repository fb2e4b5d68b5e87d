#pragma once

// The session/update notifications an ACP agent streams during a turn (and while replaying a
// loaded session), decoded into types the session renders. A kind errand does not model arrives
// as OtherUpdate with its JSON intact, so nothing the agent says is lost.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace errand::agent {

// A piece of a message. Text carries text; any other block (an image, a resource) keeps its
// JSON in raw with text empty.
struct ContentChunk {
  std::string type;  // "text", "image", "resource", ...
  std::string text;
  boost::json::value raw;
};

struct AgentMessageChunk {
  ContentChunk content;
};
struct AgentThoughtChunk {
  ContentChunk content;
};
// Sent by agents while replaying a loaded session: what the user said then.
struct UserMessageChunk {
  ContentChunk content;
};

// What a tool produced: text, a file change, a terminal, or something errand does not model.
struct ToolContent {
  enum class Type { text, diff, terminal, other };
  Type type = Type::other;
  std::string text;                     // text content
  std::string path;                     // diff: the file changed
  std::optional<std::string> old_text;  // diff: absent for a new file
  std::string new_text;                 // diff
  std::string terminal_id;              // terminal
  boost::json::value raw;
};

// A tool call as first reported. kind is one of ACP's tool kinds (read, edit, delete, move,
// search, execute, think, fetch, other); status starts as "pending" unless the agent says
// otherwise.
struct ToolCall {
  std::string id;
  std::string title;
  std::string kind = "other";
  std::string status = "pending";
  boost::json::value raw_input;
  std::vector<ToolContent> content;
};

// A later change to a tool call: only the fields the agent sent are set.
struct ToolCallUpdate {
  std::string id;
  std::optional<std::string> status;  // pending, in_progress, completed, failed
  std::optional<std::string> title;
  std::optional<std::string> kind;
  std::optional<std::vector<ToolContent>> content;  // replaces the earlier content
  std::optional<boost::json::value> raw_input;
  std::optional<boost::json::value> raw_output;
};

struct PlanEntry {
  std::string content;
  std::string priority;  // high, medium, low
  std::string status;    // pending, in_progress, completed
};
// The agent's whole current plan; each one replaces the last.
struct Plan {
  std::vector<PlanEntry> entries;
};

// How full the context window is, and what the session has cost so far when the agent knows.
struct UsageUpdate {
  std::uint64_t used = 0;
  std::uint64_t size = 0;
  std::optional<double> cost_amount;
  std::string cost_currency;
};

struct OtherUpdate {
  std::string kind;  // the sessionUpdate value as sent
  boost::json::object raw;
};

using SessionUpdateKind = std::variant<AgentMessageChunk, AgentThoughtChunk, UserMessageChunk,
                                       ToolCall, ToolCallUpdate, Plan, UsageUpdate, OtherUpdate>;

struct SessionUpdate {
  std::string session_id;
  SessionUpdateKind update;
};

// Decodes the params of a session/update notification. An error says which field was missing
// or of the wrong type; the caller logs it and skips the notification.
sdk::Result<SessionUpdate> decode_session_update(const boost::json::value& params);

// The name ACP gives the update kind ("agent_message_chunk", "tool_call", ...).
std::string update_kind_name(const SessionUpdateKind& update);

}  // namespace errand::agent
