#pragma once

// Answers one session/request_permission. Under agent.permissions "allow" the client answers at
// once; under "ask" the core gets a responder and answers when the thread has. Copies share one
// answer: the first select or cancel wins, and a request nobody answered is cancelled when the
// last copy goes, so the agent never waits forever.

#include "core/agent/acp_types.hpp"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace errand::agent {

class AcpConnection;

class PermissionResponder {
 public:
  struct State;

  PermissionResponder() = default;
  explicit PermissionResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

  // Safe from any thread; the answer is sent on the connection's executor. False when the
  // option was not offered (nothing is sent, the question stays open) or it was answered.
  bool select(const std::string& option_id) const;
  // Tells the agent no choice was made. False when already answered.
  bool cancel() const;
  bool answered() const;
  const std::vector<PermissionOption>& options() const;

 private:
  std::shared_ptr<State> state_;
};

struct PermissionResponder::State {
  State(std::weak_ptr<AcpConnection> connection, boost::json::value id, std::string session_id,
        std::vector<PermissionOption> options);
  ~State();  // answers "cancelled" when nobody did
  void send(std::optional<std::string> option_id);

  std::weak_ptr<AcpConnection> connection;
  boost::json::value id;
  std::string session_id;
  std::vector<PermissionOption> options;
  std::atomic<bool> answered{false};
};

// The option agent.permissions "allow" picks: an allow_once option first, then allow_always,
// then one whose id reads as an allow. Nothing when the agent offered no way to allow.
std::optional<std::string> choose_allow_option(const std::vector<PermissionOption>& options);

// The result object of a session/request_permission answer.
boost::json::object permission_outcome(const std::optional<std::string>& option_id);

}  // namespace errand::agent
