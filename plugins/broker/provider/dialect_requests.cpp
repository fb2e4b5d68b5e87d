#include "plugins/broker/provider/dialect_requests.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace errand::broker {
namespace json = boost::json;

namespace {

// Anthropic's API refuses calls without a version; this is the one its Messages API documents.
constexpr const char* kAnthropicVersion = "2023-06-01";

std::string path_of(Dialect dialect) {
  return dialect == Dialect::anthropic ? "/v1/messages" : "/chat/completions";
}

HeaderList headers_of(Dialect dialect) {
  HeaderList headers;
  headers.emplace_back("Content-Type", "application/json");
  if (dialect == Dialect::anthropic) headers.emplace_back("anthropic-version", kAnthropicVersion);
  return headers;
}

json::object text_part(std::string_view text) {
  return {{"type", "text"}, {"text", text}};
}

}  // namespace

DialectRequest delegate_request(Dialect dialect, std::string_view model, std::string_view artefact,
                                std::string_view question) {
  json::object message{{"role", "user"},
                       {"content", json::array{text_part(artefact), text_part(question)}}};
  json::object body{{"model", model}};
  if (dialect == Dialect::anthropic) {
    // Anthropic requires a bound on the answer; 4096 tokens is far more than one answer needs.
    body["max_tokens"] = 4096;
    body["stream"] = true;
  } else {
    body["stream"] = true;
    body["stream_options"] = json::object{{"include_usage", true}};
  }
  body["messages"] = json::array{std::move(message)};
  return {path_of(dialect), json::serialize(body), headers_of(dialect)};
}

DialectRequest probe_request(Dialect dialect, std::string_view model) {
  json::object body{{"model", model},
                    {"max_tokens", 1},
                    {"messages", json::array{json::object{{"role", "user"}, {"content", "ok"}}}}};
  return {path_of(dialect), json::serialize(body), headers_of(dialect)};
}

}  // namespace errand::broker
