#pragma once

// A session's prompts on their way to the agent: those that arrive while the session starts
// (held), those waiting in the daemon's turn queue (queued), and the one turn running. It keeps
// the two timers a turn has: the idle timer that stops a session nobody writes to, and the
// abort timer that stops one whose agent ignores an interrupt. Running the turn itself (the
// ACP prompt, the thread's rendering) is the session's; this class decides which prompt runs
// and when, and gives every turn slot back exactly once. Every call is made on the session's
// strand, and so is every effect.

#include "common/strand_signal.hpp"
#include "core/chat/render/thread_renderer.hpp"
#include "core/sessions/queue.hpp"
#include "core/sessions/session_services.hpp"
#include "core/threads/threads_db.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace errand::sessions {

class TurnRunner {
 public:
  // What the session does when the runner decides something; each is called on the strand.
  struct Effects {
    std::function<void(const sdk::MessageRef& prompt, sdk::Reaction reaction, bool add)> react;
    std::function<void(std::string text)> notice;
    std::function<void(chat::PromptAnswer answer)> answer;
    // A prompt's turn is over, or it never got one; threads.db records why.
    std::function<void(const std::string& message_id, TurnOutcome outcome)> ended;
    // current() was just set: run it, then call finish().
    std::function<void()> run;
    // Nobody wrote for timeouts.idleMs.
    std::function<void()> idle;
    // The agent did not end its turn within timeouts.abortMs of an interrupt.
    std::function<void()> stuck;
  };
  struct Timeouts {
    std::chrono::milliseconds idle{1800000};
    std::chrono::milliseconds abort{15000};
  };
  struct Turn {
    InboundPrompt prompt;
    TurnTicket ticket;
    bool was_queued = false;
    std::string text;  // the agent's text so far, for the transcript
    // Fired once the turn has ended and its slot is back.
    std::shared_ptr<common::StrandSignal> finished;
  };

  TurnRunner(boost::asio::any_io_executor strand, TurnQueue& queue, std::string session_id,
             Timeouts timeouts, Effects effects);
  TurnRunner(const TurnRunner&) = delete;
  TurnRunner& operator=(const TurnRunner&) = delete;

  // The provider the session runs on, handed to the queue with each prompt (its pause holds
  // them); before the first submit.
  void set_provider(std::string provider) { provider_ = std::move(provider); }
  // Before open(): the prompt waits until the session is ready.
  void hold(InboundPrompt prompt);
  // The session is ready: held prompts are submitted in order, and the idle timer starts.
  void open();
  // Asks the queue for a turn: it runs now, waits in the queue, or is refused.
  void submit(InboundPrompt prompt);
  // A deleted message leaves the runner if it had not begun; false when it had or was unknown.
  bool withdraw(const std::string& message_id);
  // The running turn was asked to stop: unless it ends within the abort timeout, stuck() runs.
  void interrupted();
  // The agent has ended the running turn, so an interrupt no longer needs the abort timer.
  void agent_done();
  // The running turn has ended: its slot is given back and, while open, the idle timer restarts.
  void finish();

  // The session is stopping: nothing new begins, the idle timer stops, and every waiting prompt
  // is dropped (marked stopped); returns how many were.
  std::size_t close();
  // The session could not start: the held prompts are marked failed.
  void fail_held();

  Turn* current() noexcept { return turn_ ? &*turn_ : nullptr; }
  const Turn* current() const noexcept { return turn_ ? &*turn_ : nullptr; }
  bool running() const noexcept { return turn_.has_value(); }
  // Counts the turns begun, for the transcript's turn numbers.
  std::uint64_t turn_number() const noexcept { return turn_number_; }
  std::size_t queued() const noexcept { return queued_.size(); }
  std::size_t held() const noexcept { return held_.size(); }
  // Where this session's waiting prompt stands in the daemon's queue, as last reported.
  std::optional<std::size_t> queue_position() const noexcept {
    return queued_.empty() ? std::nullopt : queue_position_;
  }

 private:
  void begin(InboundPrompt prompt, TurnTicket ticket, bool was_queued);
  void admitted(const std::string& message_id, TurnTicket ticket);
  void expired(const std::string& message_id);
  void arm_idle_timer();

  boost::asio::any_io_executor strand_;
  TurnQueue& queue_;
  std::string session_id_;
  std::string provider_;
  Timeouts timeouts_;
  Effects effects_;
  bool open_ = false;
  std::deque<InboundPrompt> held_;
  std::map<std::string, InboundPrompt> queued_;  // by message id
  std::optional<Turn> turn_;
  std::uint64_t turn_number_ = 0;
  std::optional<std::size_t> queue_position_;
  boost::asio::steady_timer idle_timer_;
  std::uint64_t idle_generation_ = 0;
  boost::asio::steady_timer abort_timer_;
  // Queue callbacks and timer handlers may run after the runner is gone; they check this first.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace errand::sessions
