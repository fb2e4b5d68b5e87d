#pragma once

// The client side of the Agent Client Protocol, as one session drives one agent: set up a
// session (new, or loaded to resume a thread), send prompts, cancel, change the model, and hear
// what the agent does through AcpEvents.
//
// Threading: create it with the session's strand and call every member, the destructor
// included, from that strand. The awaitables complete on it and every event is delivered on it
// (a PermissionResponder alone may be used from any thread). Destroying the client closes the
// connection; an awaitable still pending then completes with an error, and no event is
// delivered after the destructor has started. The sandbox keeps its own copies of the stdio
// descriptors, so the agent sees its input close only when the sandbox is stopped too.

#include "core/agent/acp_types.hpp"
#include "core/agent/permission_responder.hpp"
#include "core/agent/session_update.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace errand::agent {

struct AcpEvents {
  // Every session/update, decoded; kinds errand does not model arrive as OtherUpdate.
  std::function<void(const SessionUpdate&)> on_update;
  // Only under PermissionPolicy::ask. Answer through the responder, now or later, from any
  // thread. Without a handler every question is answered "cancelled".
  std::function<void(PermissionRequest, PermissionResponder)> on_permission;
  // Once, when the conversation ends for any reason: the agent exited, closed its output, sent
  // a line past the bound, or close() was called. The reason carries the dying words.
  std::function<void(const std::string& reason)> on_closed;
};

class AcpClient {
 public:
  // Takes over (duplicates) the agent's stdio and starts reading. Fails only when the
  // descriptors cannot be used.
  static sdk::Result<std::unique_ptr<AcpClient>> start(boost::asio::any_io_executor strand,
                                                       const AgentStdio& stdio, AcpEvents events,
                                                       AcpClientOptions options,
                                                       std::shared_ptr<spdlog::logger> log);
  ~AcpClient();
  AcpClient(const AcpClient&) = delete;
  AcpClient& operator=(const AcpClient&) = delete;

  // protocolVersion 1, no file system and no terminal offered. Refuses an agent that answers
  // with another protocol version.
  boost::asio::awaitable<sdk::Result<AgentHello>> initialize();
  // ACP authenticate with one of the methods initialize offered (auth_method_choice.hpp picks
  // it). A refusal carries the agent's own words.
  boost::asio::awaitable<sdk::Result<void>> authenticate(std::string method_id);
  // When the agent refuses because it wants authentication first, the refusal lists what it
  // offered, since that is what the operator must act on.
  boost::asio::awaitable<sdk::Result<OpenedSession>> new_session(std::string cwd = "/workspace");
  // Resumes a session the agent stored; refused without sending when the agent did not
  // advertise loadSession. The agent replays the history as session/update events first.
  boost::asio::awaitable<sdk::Result<OpenedSession>> load_session(std::string session_id,
                                                                  std::string cwd = "/workspace");
  // One turn: completes with the stop reason when the agent ends the turn. No timeout; the
  // core cancels or stops the session when it decides the turn has run too long.
  boost::asio::awaitable<sdk::Result<TurnEnd>> prompt(std::string session_id,
                                                      std::vector<PromptBlock> blocks);
  // session/cancel (a notification); the running prompt then ends with StopReason::cancelled.
  // Questions still open for that session are answered "cancelled", as ACP asks.
  void cancel(const std::string& session_id);
  // session/set_config_option; returns the agent's configOptions after the change.
  boost::asio::awaitable<sdk::Result<boost::json::array>> set_config_option(std::string session_id,
                                                                            std::string config_id,
                                                                            std::string value);
  // An extension method such as "_kage/models/list" (the name must start with "_").
  boost::asio::awaitable<sdk::Result<boost::json::value>> call_extension(
      std::string method, boost::json::object params);

  void close(const std::string& why);
  bool closed() const;
  std::string close_reason() const;
  std::string dying_words() const;
  // Empty until initialize() succeeded.
  const AgentHello& hello() const;

 private:
  struct Core;

  explicit AcpClient(std::shared_ptr<Core> core) : core_(std::move(core)) {}
  std::shared_ptr<Core> core_;
};

}  // namespace errand::agent
