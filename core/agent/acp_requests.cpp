#include "core/agent/acp_requests.hpp"
#include "core/config/string_settings.hpp"

#include <boost/json/array.hpp>

namespace errand::agent {

namespace json = boost::json;
using sdk::make_error;

namespace {

bool flag(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->as_bool();
}

const json::object* object_in(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

// An entry without an id cannot be asked for, so it is left out rather than refusing the agent.
std::optional<AuthMethod> parse_auth_method(const json::value& entry) {
  if (!entry.is_object()) return std::nullopt;
  const auto& o = entry.as_object();
  AuthMethod method{config::string_member(o, "id"),
                    config::string_member(o, "name"),
                    config::string_member(o, "type"),
                    {}};
  if (method.id.empty()) return std::nullopt;
  if (const auto* vars = o.if_contains("vars"); vars != nullptr && vars->is_array())
    for (const auto& var : vars->as_array())
      if (var.is_object())
        if (auto name = config::string_member(var.as_object(), "name"); !name.empty())
          method.variables.push_back(std::move(name));
  // The first draft of env_var methods named one variable as varName.
  if (auto single = config::string_member(o, "varName"); !single.empty())
    method.variables.push_back(std::move(single));
  return method;
}

}  // namespace

StopReason stop_reason_from(std::string_view name) {
  if (name == "end_turn") return StopReason::end_turn;
  if (name == "max_tokens") return StopReason::max_tokens;
  if (name == "max_turn_requests") return StopReason::max_turn_requests;
  if (name == "refusal") return StopReason::refusal;
  if (name == "cancelled") return StopReason::cancelled;
  return StopReason::other;
}

json::object initialize_params(const std::string& client_name, const std::string& client_version) {
  // errand offers the agent nothing of its own: files and commands stay inside the sandbox,
  // where the agent reaches them itself.
  return {
      {"protocolVersion", acp_protocol_version},
      {"clientCapabilities",
       json::object{{"fs", json::object{{"readTextFile", false}, {"writeTextFile", false}}},
                    {"terminal", false}}},
      {"clientInfo", json::object{{"name", client_name}, {"version", client_version}}},
  };
}

sdk::Result<AgentHello> parse_initialize_result(const json::value& result) {
  if (!result.is_object()) return make_error("the agent's answer to initialize is not an object");
  const auto& r = result.as_object();
  const auto* version = r.if_contains("protocolVersion");
  if (version == nullptr || !(version->is_int64() || version->is_uint64()))
    return make_error("the agent's answer to initialize has no integer protocolVersion");
  // Compared as sent: narrowing first would read 4294967297 as version 1, and an unsigned value
  // past the int64 range would throw.
  const bool speaks_ours = version->is_int64() ? version->as_int64() == acp_protocol_version
                                               : version->as_uint64() == acp_protocol_version;
  if (!speaks_ours)
    return make_error("the agent speaks ACP protocol version " +
                          (version->is_int64() ? std::to_string(version->as_int64())
                                               : std::to_string(version->as_uint64())) +
                          " and errand speaks version 1; use an agent release that supports "
                          "version 1",
                      sdk::Error::Kind::refused);
  AgentHello hello;
  hello.protocol_version = acp_protocol_version;
  if (const auto* caps = object_in(r, "agentCapabilities")) {
    hello.capabilities = *caps;
    hello.load_session = flag(*caps, "loadSession");
    if (const auto* prompt = object_in(*caps, "promptCapabilities"))
      hello.image_prompts = flag(*prompt, "image");
  }
  if (const auto* methods = r.if_contains("authMethods"); methods != nullptr && methods->is_array())
    for (const auto& entry : methods->as_array())
      if (auto method = parse_auth_method(entry)) hello.auth_methods.push_back(std::move(*method));
  if (const auto* info = object_in(r, "agentInfo")) {
    hello.name = config::string_member(*info, "name");
    hello.version = config::string_member(*info, "version");
  }
  return hello;
}

json::object session_params(const std::string& session_id, const std::string& cwd) {
  json::object params{{"cwd", cwd}, {"mcpServers", json::array{}}};
  if (!session_id.empty()) params["sessionId"] = session_id;
  return params;
}

sdk::Result<OpenedSession> parse_opened_session(const json::value& result,
                                                const std::string& loaded_id) {
  OpenedSession opened{loaded_id, {}};
  if (result.is_null() && !loaded_id.empty()) return opened;
  if (!result.is_object()) return make_error("the agent's session answer is not an object");
  const auto& r = result.as_object();
  const auto id = config::string_member(r, "sessionId");
  if (id.empty() && loaded_id.empty())
    return make_error("the agent's answer to session/new has no sessionId");
  if (!id.empty()) opened.session_id = id;
  if (const auto* options = r.if_contains("configOptions");
      options != nullptr && options->is_array())
    opened.config_options = options->as_array();
  return opened;
}

json::object prompt_params(const std::string& session_id, const std::vector<PromptBlock>& blocks) {
  json::array prompt;
  for (const auto& block : blocks) {
    switch (block.type) {
      case PromptBlock::Type::text:
        prompt.push_back(json::object{{"type", "text"}, {"text", block.text}});
        break;
      case PromptBlock::Type::image:
        prompt.push_back(
            json::object{{"type", "image"}, {"data", block.data}, {"mimeType", block.mime_type}});
        break;
      case PromptBlock::Type::resource_link: {
        json::object link{{"type", "resource_link"}, {"uri", block.uri}, {"name", block.name}};
        if (!block.mime_type.empty()) link["mimeType"] = block.mime_type;
        if (block.size) link["size"] = *block.size;
        prompt.push_back(std::move(link));
        break;
      }
    }
  }
  return {{"sessionId", session_id}, {"prompt", std::move(prompt)}};
}

sdk::Result<TurnEnd> parse_turn_end(const json::value& result) {
  if (!result.is_object())
    return make_error("the agent's answer to session/prompt is not an object");
  const auto name = config::string_member(result.as_object(), "stopReason");
  if (name.empty()) return make_error("the agent's answer to session/prompt has no stopReason");
  return TurnEnd{stop_reason_from(name), name};
}

sdk::Result<PermissionRequest> parse_permission_request(const json::value& params) {
  if (!params.is_object()) return make_error("its params are not an object");
  const auto& p = params.as_object();
  PermissionRequest request;
  request.session_id = config::string_member(p, "sessionId");
  if (request.session_id.empty()) return make_error("it names no sessionId");
  const auto* call = object_in(p, "toolCall");
  if (call == nullptr) return make_error("it has no toolCall object");
  request.tool_call_id = config::string_member(*call, "toolCallId");
  request.title = config::string_member(*call, "title", request.tool_call_id);
  request.kind = config::string_member(*call, "kind", "other");
  if (const auto* input = call->if_contains("rawInput")) request.raw_input = *input;
  const auto* options = p.if_contains("options");
  if (options == nullptr || !options->is_array() || options->as_array().empty())
    return make_error("it offers no options to choose from");
  for (const auto& option : options->as_array()) {
    if (!option.is_object()) return make_error("one of its options is not an object");
    const auto& o = option.as_object();
    PermissionOption parsed{config::string_member(o, "optionId"), config::string_member(o, "name"),
                            config::string_member(o, "kind")};
    if (parsed.id.empty()) return make_error("one of its options has no optionId");
    request.options.push_back(std::move(parsed));
  }
  return request;
}

}  // namespace errand::agent
