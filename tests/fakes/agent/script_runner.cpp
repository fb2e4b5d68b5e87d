#include "tests/fakes/agent/script_runner.hpp"

#include "tests/fakes/agent/prompt_report.hpp"
#include "tests/fakes/agent/provider_call.hpp"
#include "tests/fakes/agent/proxy_fetch.hpp"
#include "tests/fakes/agent/shell_command.hpp"

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <boost/json/serialize.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace fake_agent {

namespace json = boost::json;

namespace {

std::string script_env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

json::object text_block(std::string_view text) {
  return {{"type", "text"}, {"text", text}};
}

json::object tool_text(std::string_view text) {
  return {{"type", "content"}, {"content", text_block(text)}};
}

}  // namespace

std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char next = text[++i];
      out += next == 'n' ? '\n' : next == 't' ? '\t' : next;
    } else {
      out += text[i];
    }
  }
  return out;
}

void ScriptRunner::update(json::object body, bool keep) {
  if (keep) append_history(session_.history, body);
  wire_.notify("session/update",
               json::object{{"sessionId", session_.id}, {"update", std::move(body)}});
}

void ScriptRunner::chunks(std::string_view kind, std::string_view text) {
  // Several pieces, as a streaming model would send them.
  const std::size_t pieces = std::min<std::size_t>(3, std::max<std::size_t>(1, text.size()));
  const std::size_t size = (text.size() + pieces - 1) / pieces;
  for (std::size_t at = 0; at < text.size() || at == 0; at += size) {
    update({{"sessionUpdate", kind}, {"content", text_block(text.substr(at, size))}});
    if (size == 0) break;
  }
}

void ScriptRunner::message(std::string_view text) {
  chunks("agent_message_chunk", text);
}

std::string ScriptRunner::next_tool_id() {
  static std::atomic<int> counter{0};
  return "call-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

std::string ScriptRunner::run(const json::array& prompt) {
  base_variable_ = script_env_or("FAKE_AGENT_BASE_URL_VARIABLE", "ANTHROPIC_BASE_URL");
  key_variable_ = script_env_or("FAKE_AGENT_CREDENTIAL_VARIABLE", "ANTHROPIC_API_KEY");
  dialect_ = script_env_or("FAKE_AGENT_DIALECT", "anthropic");
  prompt_ = prompt;
  history_before_ = history_size(session_.history);
  // The last text block is the person's message, and so the script; text blocks before it are
  // context errand put ahead (the house rules), which `blocks` shows rather than runs.
  std::string script;
  for (const auto& block : prompt) {
    if (!block.is_object()) continue;
    const auto& b = block.as_object();
    const auto type = b.contains("type") ? std::string(b.at("type").as_string()) : "";
    if (type == "text") {
      const std::string text(b.at("text").as_string());
      append_history(session_.history,
                     {{"sessionUpdate", "user_message_chunk"}, {"content", text_block(text)}});
      script = text + "\n";
    } else if (type == "image") {
      message("received an image (" + std::string(b.at("mimeType").as_string()) + ", " +
              std::to_string(b.at("data").as_string().size()) + " bytes of base64)");
    }
  }
  std::istringstream lines(script);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const std::string_view text = std::string_view(line).substr(start);
    const auto space = text.find(' ');
    const auto word = text.substr(0, space);
    const auto rest = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    bool go_on = true;
    try {
      go_on = directive(word, rest);
    } catch (const std::exception& e) {
      message(std::string("fake agent: directive \"") + std::string(word) +
              "\" failed: " + e.what());
    }
    if (cancellation_.cancelled()) return "cancelled";
    if (!go_on) break;
  }
  return stop_reason_;
}

bool ScriptRunner::directive(std::string_view word, std::string_view rest) {
  if (word == "say") {
    message(unescape(rest));
  } else if (word == "think") {
    chunks("agent_thought_chunk", unescape(rest));
  } else if (word == "run") {
    run_command(rest);
  } else if (word == "write") {
    write_file(rest);
  } else if (word == "provider") {
    call_provider_directive(rest);
  } else if (word == "via") {
    std::istringstream words{std::string(rest)};
    words >> base_variable_ >> key_variable_;
    std::string dialect;
    if (words >> dialect) dialect_ = dialect;
  } else if (word == "fetch") {
    message(fetch_report(std::string(rest)));
  } else if (word == "env") {
    std::vector<std::string> entries;
    for (char** e = environ; *e != nullptr; ++e) entries.emplace_back(*e);
    std::sort(entries.begin(), entries.end());
    std::string text;
    for (const auto& e : entries) text += e + "\n";
    update({{"sessionUpdate", "agent_message_chunk"}, {"content", text_block(text)}});
  } else if (word == "blocks") {
    message(describe_blocks(prompt_));
  } else if (word == "links") {
    message(read_links(prompt_));
  } else if (word == "sleep") {
    if (cancellation_.wait_for(std::chrono::milliseconds(std::stol(std::string(rest)))))
      return false;
  } else if (word == "ask") {
    ask(rest);
  } else if (word == "exit") {
    std::_Exit(rest.empty() ? 0 : std::atoi(std::string(rest).c_str()));
  } else if (word == "stderr") {
    const std::string text = unescape(rest) + "\n";
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, text.data(), text.size());
  } else if (word == "raw") {
    wire_.send_raw(rest);
  } else if (word == "bigline") {
    update({{"sessionUpdate", "agent_message_chunk"},
            {"content", text_block(std::string(std::stoul(std::string(rest)), 'x'))}},
           false);
  } else if (word == "request") {
    agent_request(rest);
  } else if (word == "history") {
    report_history();
  } else if (word == "plan") {
    json::array entries;
    std::string_view items = rest;
    while (!items.empty()) {
      const auto bar = items.find('|');
      entries.push_back(json::object{
          {"content", items.substr(0, bar)}, {"priority", "medium"}, {"status", "pending"}});
      if (bar == std::string_view::npos) break;
      items.remove_prefix(bar + 1);
    }
    update({{"sessionUpdate", "plan"}, {"entries", std::move(entries)}});
  } else if (word == "update") {
    const auto space = rest.find(' ');
    update({{"sessionUpdate", rest.substr(0, space)},
            {"note", space == std::string_view::npos ? "" : rest.substr(space + 1)}});
  } else if (word == "usage") {
    std::istringstream words{std::string(rest)};
    std::uint64_t used = 0, size = 0;
    words >> used >> size;
    update({{"sessionUpdate", "usage_update"}, {"used", used}, {"size", size}});
  } else if (word == "stop") {
    stop_reason_ = std::string(rest);
    return false;
  } else {
    // Anything else is plain text: a person typing to the fake agent gets it said back.
    message(std::string(word) + (rest.empty() ? "" : " " + std::string(rest)));
  }
  return true;
}

void ScriptRunner::run_command(std::string_view command) {
  const std::string id = next_tool_id();
  update({{"sessionUpdate", "tool_call"},
          {"toolCallId", id},
          {"title", "run " + std::string(command)},
          {"kind", "execute"},
          {"status", "pending"},
          {"rawInput", json::object{{"command", command}}}});
  update({{"sessionUpdate", "tool_call_update"}, {"toolCallId", id}, {"status", "in_progress"}});
  const auto result =
      run_shell(std::string(command), cancellation_, [&](const std::string& so_far) {
        update({{"sessionUpdate", "tool_call_update"},
                {"toolCallId", id},
                {"status", "in_progress"},
                {"content", json::array{tool_text(so_far)}}});
      });
  if (!result.error.empty()) {
    update({{"sessionUpdate", "tool_call_update"},
            {"toolCallId", id},
            {"status", "failed"},
            {"content", json::array{tool_text(result.error)}}});
    return;
  }
  const std::string ending =
      result.cancelled ? "cancelled" : "exit status " + std::to_string(result.exit_status);
  update(
      {{"sessionUpdate", "tool_call_update"},
       {"toolCallId", id},
       {"status", !result.cancelled && result.exit_status == 0 ? "completed" : "failed"},
       {"content", json::array{tool_text(result.output), tool_text(ending)}},
       {"rawOutput", json::object{{"exitCode", result.exit_status}, {"output", result.output}}}});
}

void ScriptRunner::write_file(std::string_view rest) {
  const auto space = rest.find(' ');
  const std::string path(rest.substr(0, space));
  const std::string content =
      space == std::string_view::npos ? "" : unescape(rest.substr(space + 1));
  const std::string id = next_tool_id();
  const std::string absolute = std::filesystem::absolute(path).string();
  json::value old_text = nullptr;
  if (std::ifstream existing(path); existing) {
    std::ostringstream text;
    text << existing.rdbuf();
    old_text = text.str();
  }
  update({{"sessionUpdate", "tool_call"},
          {"toolCallId", id},
          {"title", "write " + path},
          {"kind", "edit"},
          {"status", "pending"},
          {"rawInput", json::object{{"path", path}, {"content", content}}},
          {"locations", json::array{json::object{{"path", absolute}}}}});
  std::ofstream out(path, std::ios::trunc);
  out << content;
  out.close();
  if (!out) {
    update({{"sessionUpdate", "tool_call_update"},
            {"toolCallId", id},
            {"status", "failed"},
            {"content", json::array{tool_text("cannot write " + path)}}});
    return;
  }
  update(
      {{"sessionUpdate", "tool_call_update"},
       {"toolCallId", id},
       {"status", "completed"},
       {"content",
        json::array{json::object{
            {"type", "diff"}, {"path", absolute}, {"oldText", old_text}, {"newText", content}}}}});
}

void ScriptRunner::call_provider_directive(std::string_view text) {
  const char* base = std::getenv(base_variable_.c_str());
  const char* key = std::getenv(key_variable_.c_str());
  if (base == nullptr || key == nullptr) {
    message("provider: " + (base == nullptr ? base_variable_ : key_variable_) + " is not set");
    return;
  }
  ProviderCall call{base, key, dialect_, session_.model, std::string(text)};
  const auto outcome = call_provider(call, [&](const std::string& piece) {
    update({{"sessionUpdate", "agent_message_chunk"}, {"content", text_block(piece)}});
  });
  if (!outcome.ok) {
    message("provider call failed: " + outcome.report);
    return;
  }
  update({{"sessionUpdate", "usage_update"},
          {"used", outcome.input_tokens + outcome.output_tokens},
          {"size", 200000}});
}

void ScriptRunner::ask(std::string_view rest) {
  const std::string id = next_tool_id();
  const std::string command = rest.empty() ? "true" : std::string(rest);
  json::object tool{{"toolCallId", id},
                    {"title", "run " + command},
                    {"kind", "execute"},
                    {"status", "pending"},
                    {"rawInput", json::object{{"command", command}}}};
  json::object call = tool;
  call["sessionUpdate"] = "tool_call";
  update(std::move(call));
  json::array options{
      json::object{{"optionId", "allow-once"}, {"name", "Allow once"}, {"kind", "allow_once"}},
      json::object{
          {"optionId", "allow-always"}, {"name", "Always allow"}, {"kind", "allow_always"}},
      json::object{{"optionId", "reject-once"}, {"name", "Reject"}, {"kind", "reject_once"}}};
  const auto answer = wire_.request(
      "session/request_permission",
      {{"sessionId", session_.id}, {"toolCall", std::move(tool)}, {"options", std::move(options)}});
  std::string outcome = "no answer (the client closed its side)";
  bool allowed = false;
  if (answer && answer->contains("error")) {
    outcome = "error " + json::serialize(answer->at("error"));
  } else if (answer) {
    const auto& result = answer->at("result").as_object().at("outcome").as_object();
    if (result.at("outcome").as_string() == "selected") {
      const std::string chosen(result.at("optionId").as_string());
      outcome = "selected " + chosen;
      allowed = chosen.rfind("allow", 0) == 0;
    } else {
      outcome = "cancelled";
    }
  }
  update({{"sessionUpdate", "tool_call_update"},
          {"toolCallId", id},
          {"status", allowed ? "completed" : "failed"}});
  message("permission: " + outcome);
}

void ScriptRunner::agent_request(std::string_view method) {
  const auto answer = wire_.request(method, {{"sessionId", session_.id}});
  if (!answer) {
    message("request " + std::string(method) + ": no answer");
  } else if (const auto* error = answer->if_contains("error")) {
    const auto& e = error->as_object();
    message("request " + std::string(method) + ": error " + json::serialize(e.at("code")) + " " +
            std::string(e.at("message").as_string()));
  } else {
    message("request " + std::string(method) + ": result " + json::serialize(answer->at("result")));
  }
}

void ScriptRunner::report_history() {
  const auto kept = read_history(session_.history, history_before_);
  const auto texts = kept ? prompt_texts(*kept) : std::vector<std::string>{};
  std::string text = "history: on model " + session_.model + "; " + std::to_string(texts.size()) +
                     " earlier prompt(s)";
  // One line each, so a test can find a prompt whole.
  for (const auto& prompt : texts) {
    std::string line;
    for (const char c : prompt) line += c == '\n' ? std::string("\\n") : std::string(1, c);
    text += "\n- " + line;
  }
  message(text);
}

}  // namespace fake_agent
