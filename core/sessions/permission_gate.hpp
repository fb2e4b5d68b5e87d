#pragma once

// The agent's permission questions under agent.permissions "ask": at most one is open at a time
// (a new one cancels the last), it is asked in the thread with the owner mentioned, the owner's
// answer picks an option by number, id or name, and a question nobody answers within its
// timeout is declined, so the agent never waits forever. Every call is made on the session's
// strand.

#include "core/agent/acp_types.hpp"
#include "core/agent/permission_responder.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::sessions {

class PermissionGate {
 public:
  // Posts a line in the thread, mentioning these users.
  using Say = std::function<void(std::string text, std::vector<std::string> mention_user_ids)>;

  // What an answer did: the option chosen, or why the answer was not one.
  struct Answer {
    std::optional<std::string> chosen;
    std::string refusal;
  };

  PermissionGate(boost::asio::any_io_executor strand, std::string owner_id, Say say);
  PermissionGate(const PermissionGate&) = delete;
  PermissionGate& operator=(const PermissionGate&) = delete;

  void ask(agent::PermissionRequest request, agent::PermissionResponder responder,
           std::chrono::milliseconds timeout);
  bool is_open() const noexcept { return question_.has_value(); }
  // The open question, or null.
  const agent::PermissionRequest* open_question() const noexcept {
    return question_ ? &question_->request : nullptr;
  }
  // Only while a question is open. An answer that names no option leaves the question open.
  Answer answer(std::string_view given);
  // Declines an open question without a word in the thread (the session is stopping).
  void close();

 private:
  struct Question {
    agent::PermissionRequest request;
    agent::PermissionResponder responder;
    std::uint64_t generation = 0;
  };

  void expire(std::uint64_t generation);

  std::string owner_id_;
  Say say_;
  std::optional<Question> question_;
  std::uint64_t generation_ = 0;
  boost::asio::steady_timer timer_;
  // A timer that fired just before the gate went may still call back; it checks this first.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace errand::sessions
