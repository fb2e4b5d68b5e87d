#include "tests/fakes/provider/provider_answers.hpp"

#include <atomic>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <ctime>

namespace errand::fakes {

namespace json = boost::json;

namespace {

std::string next_id(const char* prefix) {
  static std::atomic<int> counter{0};
  return std::string(prefix) + std::to_string(++counter);
}

std::string sse(const char* event, const json::object& data) {
  return std::string("event: ") + event + "\ndata: " + json::serialize(data) + "\n\n";
}

std::string data_line(const json::object& data) {
  return "data: " + json::serialize(data) + "\n\n";
}

// A cut or reset answer ends before its stream does.
bool ends_early(const ScriptedAnswer& answer) {
  return answer.kind == ScriptedAnswer::Kind::cut || answer.kind == ScriptedAnswer::Kind::reset;
}

json::value tool_input(const ScriptedAnswer& answer) {
  boost::system::error_code ec;
  auto parsed = json::parse(answer.tool_input_json, ec);
  return ec ? json::value(json::object{}) : parsed;
}

std::vector<std::string> anthropic_stream(const ScriptedAnswer& answer, const std::string& model) {
  std::vector<std::string> events;
  events.push_back(
      sse("message_start",
          {{"type", "message_start"},
           {"message", json::object{{"id", next_id("msg_fake_")},
                                    {"type", "message"},
                                    {"role", "assistant"},
                                    {"model", model},
                                    {"content", json::array{}},
                                    {"stop_reason", nullptr},
                                    {"stop_sequence", nullptr},
                                    {"usage", json::object{{"input_tokens", answer.input_tokens},
                                                           {"output_tokens", 1}}}}}}));
  const bool tool = answer.kind == ScriptedAnswer::Kind::tool_use;
  json::object block = tool ? json::object{{"type", "tool_use"},
                                           {"id", next_id("toolu_fake_")},
                                           {"name", answer.tool_name},
                                           {"input", json::object{}}}
                            : json::object{{"type", "text"}, {"text", ""}};
  events.push_back(sse("content_block_start",
                       {{"type", "content_block_start"}, {"index", 0}, {"content_block", block}}));
  events.push_back(sse("ping", {{"type", "ping"}}));
  for (const auto& piece : text_pieces(tool ? answer.tool_input_json : answer.text)) {
    json::object delta = tool ? json::object{{"type", "input_json_delta"}, {"partial_json", piece}}
                              : json::object{{"type", "text_delta"}, {"text", piece}};
    events.push_back(sse("content_block_delta",
                         {{"type", "content_block_delta"}, {"index", 0}, {"delta", delta}}));
  }
  if (ends_early(answer)) return events;
  events.push_back(sse("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}}));
  events.push_back(
      sse("message_delta", {{"type", "message_delta"},
                            {"delta", json::object{{"stop_reason", tool ? "tool_use" : "end_turn"},
                                                   {"stop_sequence", nullptr}}},
                            {"usage", json::object{{"output_tokens", answer.output_tokens}}}}));
  events.push_back(sse("message_stop", {{"type", "message_stop"}}));
  return events;
}

std::vector<std::string> openai_stream(const ScriptedAnswer& answer, const std::string& model) {
  const std::string id = next_id("chatcmpl-fake-");
  const auto created = static_cast<std::int64_t>(std::time(nullptr));
  auto chunk = [&](json::object delta, json::value finish) {
    return data_line(
        {{"id", id},
         {"object", "chat.completion.chunk"},
         {"created", created},
         {"model", model},
         {"choices", json::array{json::object{
                         {"index", 0}, {"delta", std::move(delta)}, {"finish_reason", finish}}}}});
  };
  std::vector<std::string> events;
  events.push_back(chunk({{"role", "assistant"}, {"content", ""}}, nullptr));
  const bool tool = answer.kind == ScriptedAnswer::Kind::tool_use;
  if (tool) {
    events.push_back(
        chunk({{"tool_calls",
                json::array{json::object{
                    {"index", 0},
                    {"id", next_id("call_fake_")},
                    {"type", "function"},
                    {"function", json::object{{"name", answer.tool_name}, {"arguments", ""}}}}}}},
              nullptr));
  }
  for (const auto& piece : text_pieces(tool ? answer.tool_input_json : answer.text)) {
    if (tool)
      events.push_back(chunk(
          {{"tool_calls", json::array{json::object{
                              {"index", 0}, {"function", json::object{{"arguments", piece}}}}}}},
          nullptr));
    else
      events.push_back(chunk({{"content", piece}}, nullptr));
  }
  if (ends_early(answer)) return events;
  events.push_back(chunk({}, tool ? "tool_calls" : "stop"));
  events.push_back(data_line(
      {{"id", id},
       {"object", "chat.completion.chunk"},
       {"created", created},
       {"model", model},
       {"choices", json::array{}},
       {"usage", json::object{{"prompt_tokens", answer.input_tokens},
                              {"completion_tokens", answer.output_tokens},
                              {"total_tokens", answer.input_tokens + answer.output_tokens}}}}));
  events.push_back("data: [DONE]\n\n");
  return events;
}

// The item a Responses answer is made of: a function call (codex's exec_command) or a message.
json::object responses_item(const ScriptedAnswer& answer, const std::string& item_id,
                            const std::string& call_id, bool done) {
  const char* status = done ? "completed" : "in_progress";
  if (answer.kind == ScriptedAnswer::Kind::tool_use)
    return {{"type", "function_call"},
            {"id", item_id},
            {"call_id", call_id},
            {"name", answer.tool_name},
            {"arguments", done ? answer.tool_input_json : ""},
            {"status", status}};
  json::array content;
  if (done)
    content.push_back(json::object{
        {"type", "output_text"}, {"text", answer.text}, {"annotations", json::array{}}});
  return {{"type", "message"},
          {"id", item_id},
          {"role", "assistant"},
          {"status", status},
          {"content", std::move(content)}};
}

json::object responses_object(const ScriptedAnswer& answer, const std::string& id,
                              const std::string& model, json::array output, bool done) {
  json::object response{{"id", id},
                        {"object", "response"},
                        {"created_at", static_cast<std::int64_t>(std::time(nullptr))},
                        {"status", done ? "completed" : "in_progress"},
                        {"model", model},
                        {"output", std::move(output)}};
  if (done)
    response["usage"] =
        json::object{{"input_tokens", answer.input_tokens},
                     {"input_tokens_details", json::object{{"cached_tokens", 0}}},
                     {"output_tokens", answer.output_tokens},
                     {"output_tokens_details", json::object{{"reasoning_tokens", 0}}},
                     {"total_tokens", answer.input_tokens + answer.output_tokens}};
  return response;
}

std::vector<std::string> responses_stream(const ScriptedAnswer& answer, const std::string& model) {
  const std::string id = next_id("resp_fake_");
  const bool tool = answer.kind == ScriptedAnswer::Kind::tool_use;
  const std::string item_id = next_id(tool ? "fc_fake_" : "msg_fake_");
  const std::string call_id = next_id("call_fake_");
  std::int64_t sequence = 0;
  std::vector<std::string> events;
  auto add = [&](const char* type, json::object data) {
    data["type"] = type;
    data["sequence_number"] = sequence++;
    events.push_back(sse(type, data));
  };
  add("response.created", {{"response", responses_object(answer, id, model, {}, false)}});
  add("response.in_progress", {{"response", responses_object(answer, id, model, {}, false)}});
  add("response.output_item.added",
      {{"output_index", 0}, {"item", responses_item(answer, item_id, call_id, false)}});
  if (!tool)
    add("response.content_part.added",
        {{"item_id", item_id},
         {"output_index", 0},
         {"content_index", 0},
         {"part",
          json::object{{"type", "output_text"}, {"text", ""}, {"annotations", json::array{}}}}});
  for (const auto& piece : text_pieces(tool ? answer.tool_input_json : answer.text)) {
    if (tool)
      add("response.function_call_arguments.delta",
          {{"item_id", item_id}, {"output_index", 0}, {"delta", piece}});
    else
      add("response.output_text.delta",
          {{"item_id", item_id}, {"output_index", 0}, {"content_index", 0}, {"delta", piece}});
  }
  if (ends_early(answer)) return events;
  if (tool) {
    add("response.function_call_arguments.done",
        {{"item_id", item_id}, {"output_index", 0}, {"arguments", answer.tool_input_json}});
  } else {
    add("response.output_text.done",
        {{"item_id", item_id}, {"output_index", 0}, {"content_index", 0}, {"text", answer.text}});
    add("response.content_part.done", {{"item_id", item_id},
                                       {"output_index", 0},
                                       {"content_index", 0},
                                       {"part", json::object{{"type", "output_text"},
                                                             {"text", answer.text},
                                                             {"annotations", json::array{}}}}});
  }
  const auto item = responses_item(answer, item_id, call_id, true);
  add("response.output_item.done", {{"output_index", 0}, {"item", item}});
  add("response.completed",
      {{"response", responses_object(answer, id, model, json::array{item}, true)}});
  return events;
}

}  // namespace

ScriptedAnswer ScriptedAnswer::answer(std::string text) {
  ScriptedAnswer a;
  a.text = std::move(text);
  return a;
}

ScriptedAnswer ScriptedAnswer::tool_call(std::string name, std::string input_json) {
  ScriptedAnswer a;
  a.kind = Kind::tool_use;
  a.tool_name = std::move(name);
  a.tool_input_json = std::move(input_json);
  return a;
}

ScriptedAnswer ScriptedAnswer::rate_limited(int retry_after_seconds) {
  ScriptedAnswer a;
  a.kind = Kind::rate_limited;
  a.status = 429;
  a.retry_after_seconds = retry_after_seconds;
  a.text = "rate limited by the fake provider";
  return a;
}

ScriptedAnswer ScriptedAnswer::failure(int status, std::string message) {
  ScriptedAnswer a;
  a.kind = Kind::failure;
  a.status = status;
  a.text = std::move(message);
  return a;
}

ScriptedAnswer ScriptedAnswer::cut_off(std::string partial_text) {
  ScriptedAnswer a;
  a.kind = Kind::cut;
  a.text = std::move(partial_text);
  return a;
}

ScriptedAnswer ScriptedAnswer::reset_midway(std::string partial_text) {
  ScriptedAnswer a;
  a.kind = Kind::reset;
  a.text = std::move(partial_text);
  return a;
}

ScriptedAnswer ScriptedAnswer::stalled_for(std::chrono::milliseconds stall, std::string text) {
  ScriptedAnswer a;
  a.kind = Kind::stalled;
  a.stall = stall;
  a.text = std::move(text);
  return a;
}

std::vector<std::string> text_pieces(const std::string& text) {
  std::vector<std::string> pieces;
  std::size_t at = 0;
  while (at < text.size()) {
    // Up to and including the next space, or 12 bytes, whichever comes first.
    auto end = text.find(' ', at);
    end = end == std::string::npos ? text.size() : end + 1;
    end = std::min(end, at + 12);
    pieces.push_back(text.substr(at, end - at));
    at = end;
  }
  return pieces;
}

std::vector<std::string> stream_events(Dialect dialect, const ScriptedAnswer& answer,
                                       const std::string& model) {
  switch (dialect) {
    case Dialect::anthropic: return anthropic_stream(answer, model);
    case Dialect::openai: return openai_stream(answer, model);
    case Dialect::responses: return responses_stream(answer, model);
  }
  return {};
}

std::string complete_body(Dialect dialect, const ScriptedAnswer& answer, const std::string& model) {
  const bool tool = answer.kind == ScriptedAnswer::Kind::tool_use;
  if (dialect == Dialect::responses)
    return json::serialize(responses_object(
        answer, next_id("resp_fake_"), model,
        json::array{responses_item(answer, next_id("item_fake_"), next_id("call_fake_"), true)},
        true));
  if (dialect == Dialect::anthropic) {
    json::object block = tool ? json::object{{"type", "tool_use"},
                                             {"id", next_id("toolu_fake_")},
                                             {"name", answer.tool_name},
                                             {"input", tool_input(answer)}}
                              : json::object{{"type", "text"}, {"text", answer.text}};
    return json::serialize(
        json::object{{"id", next_id("msg_fake_")},
                     {"type", "message"},
                     {"role", "assistant"},
                     {"model", model},
                     {"content", json::array{block}},
                     {"stop_reason", tool ? "tool_use" : "end_turn"},
                     {"stop_sequence", nullptr},
                     {"usage", json::object{{"input_tokens", answer.input_tokens},
                                            {"output_tokens", answer.output_tokens}}}});
  }
  json::object message{{"role", "assistant"},
                       {"content", tool ? json::value(nullptr) : json::value(answer.text)}};
  if (tool)
    message["tool_calls"] = json::array{json::object{
        {"id", next_id("call_fake_")},
        {"type", "function"},
        {"function",
         json::object{{"name", answer.tool_name}, {"arguments", answer.tool_input_json}}}}};
  return json::serialize(json::object{
      {"id", next_id("chatcmpl-fake-")},
      {"object", "chat.completion"},
      {"created", static_cast<std::int64_t>(std::time(nullptr))},
      {"model", model},
      {"choices", json::array{json::object{{"index", 0},
                                           {"message", std::move(message)},
                                           {"finish_reason", tool ? "tool_calls" : "stop"}}}},
      {"usage", json::object{{"prompt_tokens", answer.input_tokens},
                             {"completion_tokens", answer.output_tokens},
                             {"total_tokens", answer.input_tokens + answer.output_tokens}}}});
}

std::string error_body(Dialect dialect, int status, const std::string& message) {
  const char* type = status == 429   ? "rate_limit_error"
                     : status == 401 ? "authentication_error"
                     : status == 404 ? "not_found_error"
                     : status == 529 ? "overloaded_error"
                                     : "api_error";
  if (dialect == Dialect::anthropic)
    return json::serialize(json::object{
        {"type", "error"}, {"error", json::object{{"type", type}, {"message", message}}}});
  return json::serialize(json::object{
      {"error",
       json::object{{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}});
}

ScriptedAnswer answer_from_json(const json::object& spec) {
  auto text = [&](const char* key, std::string fallback) {
    const auto* v = spec.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : fallback;
  };
  auto number = [&](const char* key, std::int64_t fallback) {
    const auto* v = spec.if_contains(key);
    return v != nullptr && (v->is_int64() || v->is_uint64()) ? v->to_number<std::int64_t>()
                                                             : fallback;
  };
  const std::string kind = text("kind", "text");
  ScriptedAnswer answer;
  if (kind == "tool_use")
    answer = ScriptedAnswer::tool_call(text("name", "tool"), text("input", "{}"));
  else if (kind == "rate_limited")
    answer = ScriptedAnswer::rate_limited(static_cast<int>(number("retryAfter", 1)));
  else if (kind == "failure")
    answer =
        ScriptedAnswer::failure(static_cast<int>(number("status", 500)), text("text", "failure"));
  else if (kind == "cut")
    answer = ScriptedAnswer::cut_off(text("text", "partial answer"));
  else if (kind == "reset")
    answer = ScriptedAnswer::reset_midway(text("text", "partial answer"));
  else if (kind == "stalled")
    answer = ScriptedAnswer::stalled_for(std::chrono::milliseconds(number("stallMs", 60000)),
                                         text("text", answer.text));
  else
    answer = ScriptedAnswer::answer(text("text", answer.text));
  answer.input_tokens = static_cast<std::uint64_t>(number("inputTokens", 12));
  answer.output_tokens = static_cast<std::uint64_t>(number("outputTokens", 7));
  if (const auto* spent = spec.if_contains("windowSpent"); spent != nullptr && spent->is_bool())
    answer.window_spent = spent->as_bool();
  return answer;
}

std::vector<std::pair<std::string, std::string>> limit_headers(Dialect dialect,
                                                               std::size_t answered,
                                                               bool window_spent) {
  std::vector<std::pair<std::string, std::string>> headers;
  const auto text = [](std::size_t n) { return std::to_string(n); };
  if (dialect != Dialect::anthropic) {
    headers.emplace_back("x-ratelimit-limit-requests", "500");
    headers.emplace_back("x-ratelimit-remaining-requests",
                         window_spent ? "0" : text(500 - (answered % 500) - 1));
    headers.emplace_back("x-ratelimit-reset-requests",
                         window_spent ? std::to_string(kSpentWindowReset.count()) + "m0s" : "6m0s");
    headers.emplace_back("x-ratelimit-limit-tokens", "30000");
    headers.emplace_back("x-ratelimit-remaining-tokens", text(30000 - (answered % 300) * 100));
    headers.emplace_back("x-ratelimit-reset-tokens", "1s");
    return headers;
  }
  const auto stamp_in = [](std::chrono::minutes ahead) {
    const std::time_t reset =
        std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + ahead);
    std::tm tm{};
    ::gmtime_r(&reset, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(stamp);
  };
  const std::string stamp = stamp_in(std::chrono::minutes(1));
  headers.emplace_back("anthropic-ratelimit-requests-limit", "1000");
  headers.emplace_back("anthropic-ratelimit-requests-remaining",
                       window_spent ? "0" : text(1000 - (answered % 1000) - 1));
  headers.emplace_back("anthropic-ratelimit-requests-reset",
                       window_spent ? stamp_in(kSpentWindowReset) : stamp);
  headers.emplace_back("anthropic-ratelimit-tokens-limit", "80000");
  headers.emplace_back("anthropic-ratelimit-tokens-remaining",
                       text(80000 - (answered % 800) * 100));
  headers.emplace_back("anthropic-ratelimit-tokens-reset", stamp);
  return headers;
}

}  // namespace errand::fakes
