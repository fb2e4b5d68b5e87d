#include "tests/fakes/agent/provider_call.hpp"

#include "tests/fakes/agent/http_wire.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace fake_agent {

namespace json = boost::json;

namespace {

std::string request_path(const Url& base, const std::string& dialect) {
  std::string prefix = base.target;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (dialect == "openai") {
    const bool versioned = prefix.size() >= 3 && prefix.compare(prefix.size() - 3, 3, "/v1") == 0;
    return prefix + (versioned ? "" : "/v1") + "/chat/completions";
  }
  return prefix + "/v1/messages";
}

std::string request_body(const ProviderCall& call) {
  json::object body{
      {"model", call.model},
      {"stream", true},
      {"messages", json::array{json::object{{"role", "user"}, {"content", call.text}}}}};
  if (call.dialect == "openai")
    body["stream_options"] = json::object{{"include_usage", true}};
  else
    body["max_tokens"] = 256;
  return json::serialize(body);
}

std::uint64_t number_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && (v->is_uint64() || v->is_int64()) ? v->to_number<std::uint64_t>() : 0;
}

void anthropic_event(const json::object& event, ProviderOutcome& outcome,
                     const std::function<void(const std::string&)>& on_text) {
  const auto* type = event.if_contains("type");
  if (type == nullptr || !type->is_string()) return;
  if (*type == "message_start") {
    const auto& message = event.at("message").as_object();
    if (const auto* usage = message.if_contains("usage"); usage && usage->is_object())
      outcome.input_tokens = number_at(usage->as_object(), "input_tokens");
  } else if (*type == "content_block_delta") {
    const auto& delta = event.at("delta").as_object();
    if (const auto* text = delta.if_contains("text"); text && text->is_string())
      on_text(std::string(text->as_string()));
  } else if (*type == "message_delta") {
    if (const auto* usage = event.if_contains("usage"); usage && usage->is_object())
      outcome.output_tokens = number_at(usage->as_object(), "output_tokens");
  } else if (*type == "error") {
    outcome.ok = false;
    outcome.report = "the provider reported an error in its stream: " + json::serialize(event);
  }
}

void openai_event(const json::object& event, ProviderOutcome& outcome,
                  const std::function<void(const std::string&)>& on_text) {
  if (const auto* choices = event.if_contains("choices"); choices && choices->is_array())
    for (const auto& choice : choices->as_array())
      if (const auto* delta = choice.as_object().if_contains("delta"); delta && delta->is_object())
        if (const auto* content = delta->as_object().if_contains("content");
            content && content->is_string() && !content->as_string().empty())
          on_text(std::string(content->as_string()));
  if (const auto* usage = event.if_contains("usage"); usage && usage->is_object()) {
    outcome.input_tokens = number_at(usage->as_object(), "prompt_tokens");
    outcome.output_tokens = number_at(usage->as_object(), "completion_tokens");
  }
}

}  // namespace

ProviderOutcome call_provider(const ProviderCall& call,
                              const std::function<void(const std::string&)>& on_text) {
  ProviderOutcome outcome;
  const auto base = parse_url(call.base_url);
  if (!base) {
    outcome.report = "the provider base URL \"" + call.base_url + "\" is not an http(s) URL";
    return outcome;
  }
  if (base->scheme != "http") {
    outcome.report = "the fake agent calls its provider over plain http only (the relay)";
    return outcome;
  }
  Connection connection;
  std::string error;
  if (!connection.open(base->host, base->port, error)) {
    outcome.report = error;
    return outcome;
  }
  const std::string body = request_body(call);
  std::string request = "POST " + request_path(*base, call.dialect) + " HTTP/1.1\r\n";
  request += "Host: " + base->authority() + "\r\n";
  if (call.dialect == "openai") {
    request += "Authorization: Bearer " + call.key + "\r\n";
  } else {
    request += "x-api-key: " + call.key + "\r\n";
    request += "anthropic-version: 2023-06-01\r\n";
  }
  request += "Content-Type: application/json\r\nAccept: text/event-stream\r\n";
  request += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  request += body;
  if (!connection.write_all(request)) {
    outcome.report = "sending the request to the provider failed";
    return outcome;
  }
  ResponseReader reader(connection);
  ResponseHead head;
  if (!reader.read_head(head, error)) {
    outcome.report = error;
    return outcome;
  }
  outcome.status = head.status;
  std::string piece;
  if (head.status / 100 != 2) {
    std::string answer;
    while (answer.size() < 2000 && reader.next_body(piece)) answer += piece;
    outcome.report = "the provider answered " + head.status_line + ": " + answer.substr(0, 2000);
    return outcome;
  }
  outcome.ok = true;
  outcome.report = head.status_line;
  SseParser sse;
  bool finished = false;
  while (!finished && reader.next_body(piece)) {
    sse.feed(piece, [&](const std::string&, const std::string& data) {
      if (data == "[DONE]") {
        finished = true;
        return;
      }
      boost::system::error_code ec;
      const auto parsed = json::parse(data, ec);
      if (ec || !parsed.is_object()) return;
      if (call.dialect == "openai") {
        openai_event(parsed.as_object(), outcome, on_text);
      } else {
        anthropic_event(parsed.as_object(), outcome, on_text);
        const auto* type = parsed.as_object().if_contains("type");
        finished = type != nullptr && *type == "message_stop";
      }
    });
  }
  // A stream that stops before its last event (the connection closed or reset mid-answer) is a
  // failed call, as a real agent counts it, not a short answer.
  if (outcome.ok && !finished) {
    outcome.ok = false;
    outcome.report = "the answer stream ended before the provider finished it";
  }
  return outcome;
}

}  // namespace fake_agent
