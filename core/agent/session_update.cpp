#include "core/agent/session_update.hpp"

#include <boost/json/array.hpp>

namespace errand::agent {

namespace json = boost::json;

namespace {

using sdk::make_error;

sdk::Result<std::string> required_string(const json::object& o, std::string_view key,
                                         std::string_view where) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_string())
    return make_error(std::string(where) + " has no string \"" + std::string(key) + "\"");
  return std::string(v->as_string());
}

std::optional<std::string> optional_string(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

std::optional<std::uint64_t> unsigned_number(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_uint64()) return v->as_uint64();
  if (v->is_int64() && v->as_int64() >= 0) return static_cast<std::uint64_t>(v->as_int64());
  // A double at or past 2^64 has no uint64 value (converting it is undefined): it is no count.
  constexpr double past_uint64 = 18446744073709551616.0;
  if (v->is_double() && v->as_double() >= 0 && v->as_double() < past_uint64)
    return static_cast<std::uint64_t>(v->as_double());
  return std::nullopt;
}

sdk::Result<ContentChunk> content_chunk(const json::object& update, std::string_view kind) {
  const auto* content = update.if_contains("content");
  if (content == nullptr || !content->is_object())
    return make_error(std::string(kind) + " has no \"content\" object");
  const auto& block = content->as_object();
  auto type = required_string(block, "type", std::string(kind) + " content");
  if (!type) return type.error();
  ContentChunk chunk{*type, {}, *content};
  if (chunk.type == "text") {
    auto text = required_string(block, "text", std::string(kind) + " text content");
    if (!text) return text.error();
    chunk.text = std::move(*text);
  }
  return chunk;
}

ToolContent tool_content(const json::value& item) {
  ToolContent out;
  out.raw = item;
  if (!item.is_object()) return out;
  const auto& o = item.as_object();
  const auto type = optional_string(o, "type").value_or("");
  if (type == "content") {
    // A wrapped content block; only text is modelled, the rest stays in raw.
    const auto* inner = o.if_contains("content");
    if (inner != nullptr && inner->is_object()) {
      const auto& block = inner->as_object();
      if (optional_string(block, "type").value_or("") == "text") {
        out.type = ToolContent::Type::text;
        out.text = optional_string(block, "text").value_or("");
      }
    }
  } else if (type == "diff") {
    out.type = ToolContent::Type::diff;
    out.path = optional_string(o, "path").value_or("");
    out.old_text = optional_string(o, "oldText");
    out.new_text = optional_string(o, "newText").value_or("");
  } else if (type == "terminal") {
    out.type = ToolContent::Type::terminal;
    out.terminal_id = optional_string(o, "terminalId").value_or("");
  }
  return out;
}

sdk::Result<std::vector<ToolContent>> tool_contents(const json::value& v, std::string_view kind) {
  if (!v.is_array()) return make_error(std::string(kind) + " \"content\" is not an array");
  std::vector<ToolContent> out;
  for (const auto& item : v.as_array()) out.push_back(tool_content(item));
  return out;
}

sdk::Result<SessionUpdateKind> tool_call(const json::object& u) {
  auto id = required_string(u, "toolCallId", "tool_call");
  if (!id) return id.error();
  ToolCall call;
  call.id = std::move(*id);
  call.title = optional_string(u, "title").value_or("");
  call.kind = optional_string(u, "kind").value_or("other");
  call.status = optional_string(u, "status").value_or("pending");
  if (const auto* input = u.if_contains("rawInput")) call.raw_input = *input;
  if (const auto* content = u.if_contains("content")) {
    auto items = tool_contents(*content, "tool_call");
    if (!items) return items.error();
    call.content = std::move(*items);
  }
  return SessionUpdateKind{std::move(call)};
}

sdk::Result<SessionUpdateKind> tool_call_update(const json::object& u) {
  auto id = required_string(u, "toolCallId", "tool_call_update");
  if (!id) return id.error();
  ToolCallUpdate update;
  update.id = std::move(*id);
  update.status = optional_string(u, "status");
  update.title = optional_string(u, "title");
  update.kind = optional_string(u, "kind");
  if (const auto* content = u.if_contains("content"); content != nullptr && !content->is_null()) {
    auto items = tool_contents(*content, "tool_call_update");
    if (!items) return items.error();
    update.content = std::move(*items);
  }
  if (const auto* input = u.if_contains("rawInput")) update.raw_input = *input;
  if (const auto* output = u.if_contains("rawOutput")) update.raw_output = *output;
  return SessionUpdateKind{std::move(update)};
}

sdk::Result<SessionUpdateKind> plan(const json::object& u) {
  const auto* entries = u.if_contains("entries");
  if (entries == nullptr || !entries->is_array())
    return make_error("plan has no \"entries\" array");
  Plan out;
  for (const auto& entry : entries->as_array()) {
    if (!entry.is_object()) return make_error("a plan entry is not an object");
    const auto& e = entry.as_object();
    auto content = required_string(e, "content", "a plan entry");
    if (!content) return content.error();
    out.entries.push_back({std::move(*content), optional_string(e, "priority").value_or(""),
                           optional_string(e, "status").value_or("")});
  }
  return SessionUpdateKind{std::move(out)};
}

sdk::Result<SessionUpdateKind> usage(const json::object& u) {
  const auto used = unsigned_number(u.if_contains("used"));
  const auto size = unsigned_number(u.if_contains("size"));
  if (!used || !size)
    return make_error("usage_update needs non-negative numbers \"used\" and \"size\"");
  UsageUpdate out{*used, *size, std::nullopt, {}};
  if (const auto* cost = u.if_contains("cost"); cost != nullptr && cost->is_object()) {
    const auto& c = cost->as_object();
    if (const auto* amount = c.if_contains("amount"); amount != nullptr && amount->is_number())
      out.cost_amount = amount->to_number<double>();
    out.cost_currency = optional_string(c, "currency").value_or("");
  }
  return SessionUpdateKind{out};
}

template <class Chunk>
sdk::Result<SessionUpdateKind> chunk(const json::object& u, std::string_view kind) {
  auto content = content_chunk(u, kind);
  if (!content) return content.error();
  return SessionUpdateKind{Chunk{std::move(*content)}};
}

}  // namespace

sdk::Result<SessionUpdate> decode_session_update(const json::value& params) {
  if (!params.is_object()) return make_error("session/update params are not an object");
  const auto& p = params.as_object();
  auto session_id = required_string(p, "sessionId", "session/update");
  if (!session_id) return session_id.error();
  const auto* body = p.if_contains("update");
  if (body == nullptr || !body->is_object())
    return make_error("session/update has no \"update\" object");
  const auto& u = body->as_object();
  auto kind = required_string(u, "sessionUpdate", "session/update's update");
  if (!kind) return kind.error();

  sdk::Result<SessionUpdateKind> decoded = SessionUpdateKind{OtherUpdate{*kind, u}};
  if (*kind == "agent_message_chunk")
    decoded = chunk<AgentMessageChunk>(u, *kind);
  else if (*kind == "agent_thought_chunk")
    decoded = chunk<AgentThoughtChunk>(u, *kind);
  else if (*kind == "user_message_chunk")
    decoded = chunk<UserMessageChunk>(u, *kind);
  else if (*kind == "tool_call")
    decoded = tool_call(u);
  else if (*kind == "tool_call_update")
    decoded = tool_call_update(u);
  else if (*kind == "plan")
    decoded = plan(u);
  else if (*kind == "usage_update")
    decoded = usage(u);
  if (!decoded) return decoded.error();
  return SessionUpdate{std::move(*session_id), std::move(*decoded)};
}

std::string update_kind_name(const SessionUpdateKind& update) {
  struct Namer {
    std::string operator()(const AgentMessageChunk&) const { return "agent_message_chunk"; }
    std::string operator()(const AgentThoughtChunk&) const { return "agent_thought_chunk"; }
    std::string operator()(const UserMessageChunk&) const { return "user_message_chunk"; }
    std::string operator()(const ToolCall&) const { return "tool_call"; }
    std::string operator()(const ToolCallUpdate&) const { return "tool_call_update"; }
    std::string operator()(const Plan&) const { return "plan"; }
    std::string operator()(const UsageUpdate&) const { return "usage_update"; }
    std::string operator()(const OtherUpdate& other) const { return other.kind; }
  };
  return std::visit(Namer{}, update);
}

}  // namespace errand::agent
