#pragma once

// The values an ACP conversation with one agent exchanges, as the session sees them.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace errand::agent {

// The agent's stdio as the sandbox hands it over. The client duplicates the descriptors, so
// whoever owns these (the SandboxProcess) keeps owning them.
struct AgentStdio {
  int stdin_fd = -1;   // the client writes requests here
  int stdout_fd = -1;  // and reads the agent's messages here
  int stderr_fd = -1;  // kept as the agent's dying words
};

// What agent.permissions says to do when the agent asks before running a tool.
enum class PermissionPolicy {
  allow,  // the sandbox is the boundary: pick the agent's allow option at once
  ask,    // hand the question to the core, which asks the thread
};

struct AcpClientOptions {
  PermissionPolicy permissions = PermissionPolicy::allow;
  // A longer line ends the session: past this an agent is broken or hostile.
  std::size_t max_line_bytes = 8 * 1024 * 1024;
  std::size_t dying_words_bytes = 2000;
  // initialize, session/new and session/load (timeouts.startupMs).
  std::chrono::milliseconds setup_timeout{60000};
  // session/set_config_option and extension calls.
  std::chrono::milliseconds control_timeout{30000};
  // How long to wait for the rest of stderr after the agent closed stdout, so its last words
  // make it into the reason the session ended.
  std::chrono::milliseconds stderr_drain{500};
  std::string client_name = "errand";
  std::string client_version = "0";
};

// One way the agent offers to authenticate (initialize's authMethods). Only an env_var method
// names the variables it reads; any other kind the agent carries out on its own terms.
struct AuthMethod {
  std::string id;
  std::string name;
  std::string type;                    // "env_var", "terminal", or empty (the agent's own)
  std::vector<std::string> variables;  // env_var: the names it reads from the environment
};

// What initialize told us about the agent.
struct AgentHello {
  int protocol_version = 0;
  bool load_session = false;
  bool image_prompts = false;
  std::string name;
  std::string version;
  boost::json::object capabilities;  // agentCapabilities as sent
  std::vector<AuthMethod> auth_methods;
};

// A session the agent opened or loaded.
struct OpenedSession {
  std::string session_id;
  boost::json::array config_options;  // configOptions, when the agent offers any
};

// One block of a prompt: text, an image (base64 data and its MIME type), or a resource link
// naming a file the agent can read itself (its uri as the sandbox sees it, a name, and the
// MIME type and size when known). ACP requires every agent to take text and resource links;
// images only when the agent says it takes them.
struct PromptBlock {
  enum class Type { text, image, resource_link };
  Type type = Type::text;
  std::string text;
  std::string data;
  std::string mime_type;
  std::string uri;
  std::string name;
  std::optional<std::uint64_t> size;

  static PromptBlock of_text(std::string text) {
    PromptBlock block;
    block.text = std::move(text);
    return block;
  }
  static PromptBlock of_image(std::string base64, std::string mime) {
    PromptBlock block;
    block.type = Type::image;
    block.data = std::move(base64);
    block.mime_type = std::move(mime);
    return block;
  }
  static PromptBlock of_resource_link(std::string uri, std::string name, std::string mime,
                                      std::optional<std::uint64_t> size) {
    PromptBlock block;
    block.type = Type::resource_link;
    block.uri = std::move(uri);
    block.name = std::move(name);
    block.mime_type = std::move(mime);
    block.size = size;
    return block;
  }
};

enum class StopReason { end_turn, max_tokens, max_turn_requests, refusal, cancelled, other };

struct TurnEnd {
  StopReason stop_reason = StopReason::end_turn;
  std::string stop_reason_name;  // as the agent sent it
};

StopReason stop_reason_from(std::string_view name);

struct PermissionOption {
  std::string id;
  std::string name;
  std::string kind;  // allow_once, allow_always, reject_once, reject_always
};

// session/request_permission: the agent wants to run a tool and asks first.
struct PermissionRequest {
  std::string session_id;
  std::string tool_call_id;
  std::string title;
  std::string kind;
  boost::json::value raw_input;
  std::vector<PermissionOption> options;
};

}  // namespace errand::agent
