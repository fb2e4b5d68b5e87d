#pragma once

// What threads.db knows of one session: the thread it runs in, its start and end, each turn's
// progress, the model the thread keeps and whether the thread was archived or closed. Every
// write runs on the store's worker and resumes on the session's strand; a write that fails is
// logged, except the start's, which stops the session from starting.

#include "core/sessions/session_services.hpp"
#include "core/threads/threads_store.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <string>

namespace errand::sessions {

class SessionLedger {
 public:
  SessionLedger(boost::asio::any_io_executor strand, ThreadsStore& threads,
                std::shared_ptr<spdlog::logger> log, std::string session_id);

  // A new thread's row (none for a resumed thread, whose row exists) and the session's.
  boost::asio::awaitable<sdk::Result<void>> started(const SessionPlan& plan,
                                                    const std::string& backend,
                                                    std::chrono::system_clock::time_point now);
  // Whether threads.db has the session, so its end is recorded only then.
  bool recorded() const noexcept { return recorded_; }
  boost::asio::awaitable<void> ended(std::string reason);

  boost::asio::awaitable<void> turn_began(std::string message_id);
  boost::asio::awaitable<void> turn_ended(std::string message_id, TurnOutcome outcome);
  // The same, without waiting for it: for prompts that never became a turn.
  void turn_ended_later(std::string message_id, TurnOutcome outcome);

  boost::asio::awaitable<void> keep_model(std::string thread_id, std::string model);
  boost::asio::awaitable<void> thread_archived(std::string thread_id);
  // A thread deleted in the chat service can never be resumed.
  boost::asio::awaitable<void> thread_closed(std::string thread_id);

 private:
  boost::asio::any_io_executor strand_;
  ThreadsStore& threads_;
  std::shared_ptr<spdlog::logger> log_;
  std::string session_id_;
  bool recorded_ = false;
};

}  // namespace errand::sessions
