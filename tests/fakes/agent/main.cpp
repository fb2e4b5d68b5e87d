// fake-acp-agent: a scripted ACP agent for tests. It speaks ACP on stdio like kage does, and
// each prompt is a script of directives (see docs/agent.md) that it carries out for real:
// commands run, files are written, the provider is called through its base URL.
//
// Environment: FAKE_AGENT_STATE_DIR (default /state) keeps session histories for session/load;
// FAKE_AGENT_PROVIDERS (comma separated ids) is what _kage/models/list answers, and
// FAKE_AGENT_MODELS_LIST=unknown|silent makes it behave like a kage too old to answer;
// FAKE_AGENT_PROTOCOL_VERSION and FAKE_AGENT_LOAD_SESSION=0 change what initialize says;
// FAKE_AGENT_MODEL is the model a session starts on. FAKE_AGENT_AUTH_VARIABLE=NAME makes it
// offer an env_var authMethod reading NAME (beside a login of its own) and answer session/new
// "Authentication required" until authenticate succeeded, as codex-acp does; authenticate then
// fails when NAME is unset, or with the words in FAKE_AGENT_AUTH_REFUSAL when those are set.
// FAKE_AGENT_INITIALIZE=silent never answers initialize (an agent that hangs while starting) and
// FAKE_AGENT_CANCEL=ignore lets a prompt run on through session/cancel (an agent that will not
// stop), so the client's own deadlines for those are what ends the wait.

#include "tests/fakes/agent/agent_wire.hpp"
#include "tests/fakes/agent/cancellation.hpp"
#include "tests/fakes/agent/script_runner.hpp"
#include "tests/fakes/agent/session_history.hpp"

#include <atomic>
#include <boost/json/parse.hpp>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <thread>

namespace json = boost::json;
using namespace fake_agent;

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

json::array config_options(const FakeSession& session) {
  json::array values;
  for (const std::string& model : {std::string("fake-model"), std::string("fake-model-small")})
    values.push_back(json::object{{"value", model}, {"name", model}});
  if (session.model != "fake-model" && session.model != "fake-model-small")
    values.push_back(json::object{{"value", session.model}, {"name", session.model}});
  return json::array{json::object{{"id", "model"},
                                  {"name", "Model"},
                                  {"category", "model"},
                                  {"type", "select"},
                                  {"currentValue", session.model},
                                  {"options", std::move(values)}}};
}

json::object models_list() {
  json::array providers;
  std::string ids = env_or("FAKE_AGENT_PROVIDERS", "anthropic,openai,openrouter,zai,groq");
  std::size_t start = 0;
  while (start < ids.size()) {
    const auto comma = ids.find(',', start);
    const std::string id = ids.substr(start, comma - start);
    if (!id.empty())
      providers.push_back(json::object{
          {"id", id},
          {"name", id},
          {"models", json::array{json::object{
                         {"id", id + "-model"}, {"name", id + " model"}, {"context", 200000}}}}});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {{"providers", std::move(providers)}};
}

std::string new_session_id() {
  std::random_device random;
  return "fake-" + std::to_string(random()) + std::to_string(random());
}

class FakeAgent {
 public:
  void serve() {
    std::string line;
    while (std::getline(std::cin, line)) {
      boost::system::error_code ec;
      auto parsed = json::parse(line, ec);
      if (ec || !parsed.is_object()) continue;
      handle(parsed.as_object());
    }
    wire_.input_closed();
    cancellation_.cancel();
    if (prompt_.joinable()) prompt_.join();
  }

 private:
  void handle(const json::object& message) {
    const auto* method = message.if_contains("method");
    if (method == nullptr) return wire_.deliver(message);
    const std::string name(method->as_string());
    const json::value id = message.contains("id") ? message.at("id") : json::value(nullptr);
    const json::object params = message.contains("params") && message.at("params").is_object()
                                    ? message.at("params").as_object()
                                    : json::object{};
    if (name == "session/cancel") {
      if (env_or("FAKE_AGENT_CANCEL", "obey") != "ignore") cancellation_.cancel();
      return;
    }
    if (id.is_null()) return;  // other notifications need nothing
    if (name == "initialize") {
      if (env_or("FAKE_AGENT_INITIALIZE", "answer") != "silent") initialize(id);
      return;
    }
    if (name == "authenticate") return authenticate(id, params);
    if ((name == "session/new" || name == "session/load") && !authenticated())
      return wire_.reply_error(id, -32000, "Authentication required");
    if (name == "session/new") return open_session(id, new_session_id(), false);
    if (name == "session/load") return load_session(id, params);
    if (name == "session/prompt") return prompt(id, params);
    if (name == "session/set_config_option") return set_option(id, params);
    if (name == "_kage/models/list") return models(id);
    wire_.reply_error(id, -32601, "Method not found: " + name);
  }

  void initialize(const json::value& id) {
    const int version = std::atoi(env_or("FAKE_AGENT_PROTOCOL_VERSION", "1").c_str());
    const bool load = env_or("FAKE_AGENT_LOAD_SESSION", "1") != "0";
    wire_.reply(
        id, json::object{
                {"protocolVersion", version},
                {"agentCapabilities",
                 json::object{{"loadSession", load},
                              {"promptCapabilities", json::object{{"image", true},
                                                                  {"audio", false},
                                                                  {"embeddedContext", false}}}}},
                {"agentInfo", json::object{{"name", "fake-acp-agent"}, {"version", "1"}}},
                {"authMethods", auth_methods()}});
  }

  static std::string auth_variable() { return env_or("FAKE_AGENT_AUTH_VARIABLE", ""); }
  bool authenticated() const { return auth_variable().empty() || authenticated_; }

  static json::array auth_methods() {
    const std::string variable = auth_variable();
    if (variable.empty()) return json::array{};
    return json::array{json::object{{"id", "fake-login"}, {"name", "Log in with a browser"}},
                       json::object{{"type", "env_var"},
                                    {"id", "fake-api-key"},
                                    {"name", "Use " + variable},
                                    {"vars", json::array{json::object{{"name", variable}}}}}};
  }

  void authenticate(const json::value& id, const json::object& params) {
    const auto* method = params.if_contains("methodId");
    if (method == nullptr || !method->is_string() || method->as_string() != "fake-api-key")
      return wire_.reply_error(id, -32602, "Invalid params: only fake-api-key works here");
    const std::string refusal = env_or("FAKE_AGENT_AUTH_REFUSAL", "");
    if (!refusal.empty()) return wire_.reply_error(id, -32000, refusal);
    if (env_or(auth_variable().c_str(), "").empty())
      return wire_.reply_error(id, -32000, auth_variable() + " is not set");
    authenticated_ = true;
    wire_.reply(id, json::object{});
  }

  void open_session(const json::value& id, const std::string& session_id, bool loaded) {
    auto& session = sessions_[session_id];
    session.id = session_id;
    if (session.model.empty()) session.model = env_or("FAKE_AGENT_MODEL", "fake-model");
    session.history = history_path(session_id);
    json::object result{{"configOptions", config_options(session)}};
    if (!loaded) result["sessionId"] = session_id;
    wire_.reply(id, std::move(result));
  }

  void load_session(const json::value& id, const json::object& params) {
    const auto* sid = params.if_contains("sessionId");
    const std::string session_id =
        sid != nullptr && sid->is_string() ? std::string(sid->as_string()) : "";
    const auto history =
        is_valid_session_id(session_id) ? read_history(history_path(session_id)) : std::nullopt;
    if (!history)
      return wire_.reply_error(id, -32002, "Resource not found: no stored session " + session_id);
    for (const auto& update : *history)
      wire_.notify("session/update", json::object{{"sessionId", session_id}, {"update", update}});
    open_session(id, session_id, true);
  }

  void prompt(const json::value& id, const json::object& params) {
    const auto* sid = params.if_contains("sessionId");
    const auto found = sid != nullptr && sid->is_string()
                           ? sessions_.find(std::string(sid->as_string()))
                           : sessions_.end();
    if (found == sessions_.end())
      return wire_.reply_error(id, -32602, "Invalid params: unknown session");
    if (running_) return wire_.reply_error(id, -32000, "a prompt is already running");
    if (prompt_.joinable()) prompt_.join();
    const auto* blocks = params.if_contains("prompt");
    json::array script =
        blocks != nullptr && blocks->is_array() ? blocks->as_array() : json::array{};
    running_ = true;
    cancellation_.reset();
    prompt_ = std::thread([this, id, &session = found->second, script = std::move(script)] {
      ScriptRunner runner(wire_, session, cancellation_);
      const std::string stop = runner.run(script);
      running_ = false;
      wire_.reply(id, json::object{{"stopReason", stop}});
    });
  }

  void set_option(const json::value& id, const json::object& params) {
    const auto* sid = params.if_contains("sessionId");
    const auto found = sid != nullptr && sid->is_string()
                           ? sessions_.find(std::string(sid->as_string()))
                           : sessions_.end();
    const auto* config = params.if_contains("configId");
    const auto* value = params.if_contains("value");
    if (found == sessions_.end())
      return wire_.reply_error(id, -32602, "Invalid params: unknown session");
    if (config == nullptr || !config->is_string() || config->as_string() != "model")
      return wire_.reply_error(id, -32602, "Invalid params: the only option is \"model\"");
    if (value == nullptr || !value->is_string() || value->as_string().empty())
      return wire_.reply_error(id, -32602, "Invalid params: a model needs a name");
    found->second.model = std::string(value->as_string());
    wire_.reply(id, json::object{{"configOptions", config_options(found->second)}});
  }

  void models(const json::value& id) {
    const std::string behaviour = env_or("FAKE_AGENT_MODELS_LIST", "answer");
    if (behaviour == "silent") return;
    if (behaviour == "unknown") return wire_.reply_error(id, -32601, "Method not found");
    wire_.reply(id, models_list());
  }

  Wire wire_;
  Cancellation cancellation_;
  std::map<std::string, FakeSession> sessions_;
  std::thread prompt_;
  std::atomic<bool> running_{false};
  bool authenticated_ = false;
};

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  FakeAgent agent;
  agent.serve();
  return 0;
}
