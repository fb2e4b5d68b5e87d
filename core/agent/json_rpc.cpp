#include "core/agent/json_rpc.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "common/json_kind_phrase.hpp"

namespace errand::agent::rpc {

namespace json = boost::json;

namespace {

bool is_integer(const json::value& v) {
  return v.is_int64() || v.is_uint64();
}

bool is_valid_id(const json::value& v) {
  return v.is_string() || is_integer(v);
}

sdk::Result<json::value> params_of(const json::object& message) {
  const auto* params = message.if_contains("params");
  if (params == nullptr) return json::value(nullptr);
  if (!params->is_object() && !params->is_array())
    return sdk::make_error(std::string("its \"params\" is ") +
                           std::string(common::json_kind_phrase(*params)) +
                           ", not an object or an array");
  return *params;
}

sdk::Result<Message> parse_response(const json::object& message) {
  const auto* id = message.if_contains("id");
  if (id == nullptr)
    return sdk::make_error("it has neither a \"method\" nor an \"id\", so it is no message");
  const auto* result = message.if_contains("result");
  const auto* error = message.if_contains("error");
  if ((result == nullptr) == (error == nullptr))
    return sdk::make_error("a response must carry exactly one of \"result\" and \"error\"");
  if (result != nullptr) {
    if (!is_valid_id(*id))
      return sdk::make_error(std::string("its \"id\" is ") +
                             std::string(common::json_kind_phrase(*id)) +
                             ", not a string or an integer");
    return Message{Response{*id, *result, std::nullopt}};
  }
  if (!is_valid_id(*id) && !id->is_null())
    return sdk::make_error(std::string("its \"id\" is ") +
                           std::string(common::json_kind_phrase(*id)) +
                           ", not a string, an integer or null");
  if (!error->is_object())
    return sdk::make_error(std::string("its \"error\" is ") +
                           std::string(common::json_kind_phrase(*error)) + ", not an object");
  const auto& fields = error->as_object();
  const auto* code = fields.if_contains("code");
  const auto* text = fields.if_contains("message");
  if (code == nullptr || !is_integer(*code))
    return sdk::make_error("its \"error\" has no integer \"code\"");
  if (text == nullptr || !text->is_string())
    return sdk::make_error("its \"error\" has no string \"message\"");
  ResponseError failure;
  failure.code = code->is_int64() ? code->as_int64() : static_cast<std::int64_t>(code->as_uint64());
  failure.message = std::string(text->as_string());
  if (const auto* data = fields.if_contains("data")) failure.data = *data;
  return Message{Response{*id, std::nullopt, std::move(failure)}};
}

}  // namespace

sdk::Result<Message> parse_message(std::string_view line) {
  boost::system::error_code ec;
  json::value parsed = json::parse(line, ec);
  if (ec) return sdk::make_error("it is not JSON (" + ec.message() + ")");
  if (!parsed.is_object())
    return sdk::make_error(std::string("it is ") + std::string(common::json_kind_phrase(parsed)) +
                           " where a JSON-RPC message is an object");
  const auto& message = parsed.as_object();
  const auto* version = message.if_contains("jsonrpc");
  if (version == nullptr || !version->is_string() || version->as_string() != "2.0")
    return sdk::make_error("it lacks \"jsonrpc\": \"2.0\", so it is not JSON-RPC 2.0");
  const auto* method = message.if_contains("method");
  if (method == nullptr) return parse_response(message);
  if (!method->is_string())
    return sdk::make_error(std::string("its \"method\" is ") +
                           std::string(common::json_kind_phrase(*method)) + ", not a string");
  auto params = params_of(message);
  if (!params) return params.error();
  std::string name(method->as_string());
  const auto* id = message.if_contains("id");
  if (id == nullptr) return Message{Notification{std::move(name), std::move(*params)}};
  if (!is_valid_id(*id))
    return sdk::make_error(std::string("its \"id\" is ") +
                           std::string(common::json_kind_phrase(*id)) +
                           ", not a string or an integer");
  return Message{Request{*id, std::move(name), std::move(*params)}};
}

std::string request_line(std::int64_t id, std::string_view method, json::value params) {
  json::object message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return json::serialize(message) + "\n";
}

std::string notification_line(std::string_view method, json::value params) {
  json::object message{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return json::serialize(message) + "\n";
}

std::string result_line(const json::value& id, json::value result) {
  json::object message{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  return json::serialize(message) + "\n";
}

std::string error_line(const json::value& id, int code, std::string_view text) {
  json::object message{
      {"jsonrpc", "2.0"}, {"id", id}, {"error", json::object{{"code", code}, {"message", text}}}};
  return json::serialize(message) + "\n";
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  const bool cut = text.size() > max_bytes;
  if (cut) text = text.substr(0, max_bytes);
  out.reserve(text.size() + 16);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20 || byte == 0x7f) ? '?' : c;
  }
  if (cut) out += "...";
  return out;
}

}  // namespace errand::agent::rpc
