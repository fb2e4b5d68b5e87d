#include "tests/fakes/provider/shell_turn.hpp"

#include <algorithm>
#include <array>
#include <boost/json/serialize.hpp>
#include <string_view>

namespace errand::fakes {

namespace json = boost::json;

namespace {

struct ShellTool {
  std::string name;
  std::string argument;  // the input field that carries the command line
};

// The shell tools of the agents the tests run: Claude Code's Bash (Messages API), codex's
// exec_command (Responses API), and a plain "shell" function for chat completions.
std::optional<ShellTool> offered_shell_tool(Dialect dialect, const json::object& body) {
  const auto* tools = body.if_contains("tools");
  if (tools == nullptr || !tools->is_array()) return std::nullopt;
  for (const auto& tool : tools->as_array()) {
    if (!tool.is_object()) continue;
    const auto& t = tool.as_object();
    const json::object* named = &t;
    if (dialect == Dialect::openai)
      if (const auto* function = t.if_contains("function"); function && function->is_object())
        named = &function->as_object();
    const auto* name = named->if_contains("name");
    if (name == nullptr || !name->is_string()) continue;
    const std::string_view n = name->as_string();
    if (dialect == Dialect::anthropic && n == "Bash") return ShellTool{"Bash", "command"};
    if (dialect == Dialect::responses && (n == "exec_command" || n == "shell"))
      return ShellTool{std::string(n), n == "exec_command" ? "cmd" : "command"};
    if (dialect == Dialect::openai && (n == "shell" || n == "bash"))
      return ShellTool{std::string(n), "command"};
  }
  return std::nullopt;
}

std::string text_of(const json::value& content) {
  if (content.is_string()) return std::string(content.as_string());
  std::string text;
  if (content.is_array())
    for (const auto& part : content.as_array())
      if (part.is_object())
        if (const auto* t = part.as_object().if_contains("text"); t && t->is_string())
          text += std::string(t->as_string());
  return text;
}

// Anthropic: the last message is the user's, holding tool_result blocks.
std::optional<std::string> anthropic_tool_result(const json::object& body) {
  const auto* messages = body.if_contains("messages");
  if (messages == nullptr || !messages->is_array() || messages->as_array().empty())
    return std::nullopt;
  const auto& last = messages->as_array().back();
  if (!last.is_object()) return std::nullopt;
  const auto* content = last.as_object().if_contains("content");
  if (content == nullptr || !content->is_array()) return std::nullopt;
  for (const auto& block : content->as_array())
    if (block.is_object() && block.as_object().contains("type") &&
        block.as_object().at("type") == "tool_result") {
      const auto* result = block.as_object().if_contains("content");
      return result != nullptr ? text_of(*result) : std::string();
    }
  return std::nullopt;
}

// Responses: function_call_output items after the last user message.
std::optional<std::string> responses_tool_result(const json::object& body) {
  const auto* input = body.if_contains("input");
  if (input == nullptr || !input->is_array()) return std::nullopt;
  std::optional<std::string> result;
  for (const auto& item : input->as_array()) {
    if (!item.is_object()) continue;
    const auto& o = item.as_object();
    const auto* type = o.if_contains("type");
    const auto* role = o.if_contains("role");
    if (role != nullptr && *role == "user") result.reset();
    if (type != nullptr && *type == "function_call_output")
      if (const auto* output = o.if_contains("output")) result = text_of(*output);
  }
  return result;
}

// Chat completions: the last message is a tool message.
std::optional<std::string> openai_tool_result(const json::object& body) {
  const auto* messages = body.if_contains("messages");
  if (messages == nullptr || !messages->is_array() || messages->as_array().empty())
    return std::nullopt;
  const auto& last = messages->as_array().back();
  if (!last.is_object() || !last.as_object().contains("role") ||
      last.as_object().at("role") != "tool")
    return std::nullopt;
  const auto* content = last.as_object().if_contains("content");
  return content != nullptr ? text_of(*content) : std::string();
}

// codex wraps a command's output in a report of its own (chunk id, wall time, exit code, then
// "Output:"); the model would read past that, and so does the fake.
std::string printed_part(std::string text) {
  static constexpr std::string_view marker = "\nOutput:\n";
  if (const auto at = text.find(marker); at != std::string::npos) text.erase(0, at + marker.size());
  return text;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::optional<ScriptedAnswer> shell_turn_answer(Dialect dialect, const json::object& body,
                                                const std::string& command) {
  const auto tool = offered_shell_tool(dialect, body);
  if (!tool) return std::nullopt;
  const auto result = dialect == Dialect::anthropic   ? anthropic_tool_result(body)
                      : dialect == Dialect::responses ? responses_tool_result(body)
                                                      : openai_tool_result(body);
  if (result)
    return ScriptedAnswer::answer(std::string(shell_report_prefix) +
                                  trimmed(printed_part(*result)));
  json::object input{{tool->argument, command}};
  if (dialect == Dialect::anthropic) input["description"] = "Run the command the user asked for";
  return ScriptedAnswer::tool_call(tool->name, json::serialize(input));
}

}  // namespace errand::fakes
