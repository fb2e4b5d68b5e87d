// libFuzzer target for what an agent writes on stdout: the bytes are cut into lines, each line
// is read as JSON-RPC, and whatever the daemon would decode from a message (session updates,
// permission questions, the answers to its own calls) is decoded and rendered as the thread
// would show it. Nothing an agent sends may crash the daemon, and every bound the renderer
// promises must hold.

#include <boost/json/serialize.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/agent/acp_requests.hpp"
#include "core/agent/json_rpc.hpp"
#include "core/agent/line_splitter.hpp"
#include "core/agent/session_update.hpp"
#include "core/chat/render/message_split.hpp"
#include "core/chat/render/output_format.hpp"

namespace {

namespace json = boost::json;
using namespace errand;
namespace rpc = errand::agent::rpc;

// Small enough that the fuzzer reaches the end of a line that is too long.
constexpr std::size_t kMaxLineBytes = 4096;
// Discord's limit, which is what the thread renders to.
constexpr std::size_t kMessageLimit = 2000;

void check(bool condition) {
  if (!condition) std::abort();
}

bool is_utf8_boundary(std::string_view text, std::size_t at) {
  return at >= text.size() || (static_cast<unsigned char>(text[at]) & 0xC0) != 0x80;
}

void render_text(std::string_view text) {
  std::size_t consumed = 0;
  for (const auto& piece : chat::split_message(text, kMessageLimit)) {
    check(piece.text.size() <= kMessageLimit);
    check(piece.consumed > 0);
    consumed += piece.consumed;
    check(is_utf8_boundary(text, consumed));
  }
  check(consumed == text.size());
  check(chat::utf8_prefix(text, 100) <= 100);
  check(chat::inline_code(text).find('\n') == std::string::npos);
  check(chat::truncate_middle(text, 300).size() <= 300 || text.size() <= 300);
}

void render_tool(const std::string& title, const std::vector<agent::ToolContent>& content) {
  chat::ToolCallEnd end;
  end.title = title;
  for (const auto& item : content) {
    if (item.type == agent::ToolContent::Type::text) end.output += item.text;
    if (item.type != agent::ToolContent::Type::diff) continue;
    chat::FileChange change{item.path, item.old_text, item.new_text};
    check(chat::file_change_message(change, kMessageLimit).size() <= kMessageLimit);
  }
  for (const bool forward : {false, true})
    check(chat::tool_message(title, end, forward, 1500, kMessageLimit).size() <= kMessageLimit);
}

void decode_update(const json::value& params) {
  const auto update = agent::decode_session_update(params);
  if (!update) {
    check(!update.error().message.empty());
    return;
  }
  // The kind is named as the agent sent it, whether errand models it or passes it on.
  const auto& sent = params.as_object().at("update").as_object().at("sessionUpdate").as_string();
  check(agent::update_kind_name(update->update) == sent);
  std::visit(
      [](const auto& u) {
        using T = std::decay_t<decltype(u)>;
        if constexpr (std::is_same_v<T, agent::AgentMessageChunk> ||
                      std::is_same_v<T, agent::AgentThoughtChunk>) {
          render_text(u.content.text);
        } else if constexpr (std::is_same_v<T, agent::ToolCall>) {
          render_tool(u.title, u.content);
        } else if constexpr (std::is_same_v<T, agent::ToolCallUpdate>) {
          if (u.content) render_tool(u.title.value_or(""), *u.content);
        }
      },
      update->update);
}

// A response could answer any call the daemon makes; each reader must refuse or accept it.
void decode_answer(const json::value& result) {
  if (const auto hello = agent::parse_initialize_result(result)) {
    // Only an agent that said version 1 may be accepted as speaking it.
    const auto& version = result.as_object().at("protocolVersion");
    check(version.is_int64() ? version.as_int64() == agent::acp_protocol_version
                             : version.as_uint64() == agent::acp_protocol_version);
  }
  if (const auto opened = agent::parse_opened_session(result, {}))
    check(!opened->session_id.empty());
  (void)agent::parse_opened_session(result, "loaded-session");
  if (const auto end = agent::parse_turn_end(result)) check(!end->stop_reason_name.empty());
}

void decode_line(const std::string& line) {
  check(rpc::excerpt(line).size() <= 203);
  auto message = rpc::parse_message(line);
  if (!message) {
    check(!message.error().message.empty());
    return;
  }
  if (auto* request = std::get_if<rpc::Request>(&*message)) {
    check(request->id.is_string() || request->id.is_int64() || request->id.is_uint64());
    if (request->method == "session/request_permission")
      if (const auto asked = agent::parse_permission_request(request->params))
        check(!asked->options.empty());
    // The daemon's answer echoes the id, and reads back as an answer to it.
    const auto answer = rpc::parse_message(rpc::error_line(request->id, -32601, request->method));
    check(answer && std::get<rpc::Response>(*answer).id == request->id);
  } else if (auto* notification = std::get_if<rpc::Notification>(&*message)) {
    if (notification->method == "session/update") decode_update(notification->params);
  } else {
    auto& response = std::get<rpc::Response>(*message);
    check(response.result.has_value() != response.error.has_value());
    if (response.result) decode_answer(*response.result);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte sets how the stream arrives in reads, so lines cross read boundaries.
  const std::size_t read_size = 1 + data[0] % 64;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);

  agent::LineSplitter splitter(kMaxLineBytes);
  std::vector<std::string> lines;
  bool within_bound = true;
  for (std::size_t at = 0; at < stream.size() && within_bound; at += read_size)
    within_bound = splitter.feed(stream.substr(at, read_size), lines);

  // However the reads fall, the same lines come out.
  agent::LineSplitter whole(kMaxLineBytes);
  std::vector<std::string> at_once;
  check(whole.feed(stream, at_once) == within_bound);
  check(at_once == lines);

  for (const auto& line : lines) {
    check(line.size() <= kMaxLineBytes);
    check(line.find('\n') == std::string::npos);
    decode_line(line);
  }

  agent::StderrTail tail(100);
  tail.append(stream);
  check(tail.text().size() <= 100);
  return 0;
}
