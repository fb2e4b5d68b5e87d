#include "core/sessions/turn_runner.hpp"

#include <algorithm>

namespace errand::sessions {

TurnRunner::TurnRunner(boost::asio::any_io_executor strand, TurnQueue& queue,
                       std::string session_id, Timeouts timeouts, Effects effects)
    : strand_(strand),
      queue_(queue),
      session_id_(std::move(session_id)),
      timeouts_(timeouts),
      effects_(std::move(effects)),
      idle_timer_(strand),
      abort_timer_(strand) {}

void TurnRunner::hold(InboundPrompt prompt) {
  held_.push_back(std::move(prompt));
}

void TurnRunner::open() {
  open_ = true;
  while (!held_.empty()) {
    auto next = std::move(held_.front());
    held_.pop_front();
    submit(std::move(next));
  }
  arm_idle_timer();
}

void TurnRunner::submit(InboundPrompt prompt) {
  std::weak_ptr<void> alive = alive_;
  PromptSubmission submission;
  submission.session_id = session_id_;
  submission.message_id = prompt.ref.message_id;
  submission.provider = provider_;
  submission.executor = strand_;
  const std::string message_id = prompt.ref.message_id;
  submission.on_admitted = [this, alive, message_id](TurnTicket ticket) {
    if (alive.expired()) return;
    admitted(message_id, std::move(ticket));
  };
  // The thread is told its place once, when the prompt is queued. Each move up is kept for
  // !status, not posted: with a long queue, a post per move for every waiting prompt would fill
  // the threads and spend Discord's per-channel budget the answers need.
  submission.on_position = [this, alive](std::size_t position) {
    if (alive.expired()) return;
    queue_position_ = position;
  };
  submission.on_expired = [this, alive, message_id] {
    if (!alive.expired()) expired(message_id);
  };
  ++idle_generation_;
  idle_timer_.cancel();
  auto outcome = queue_.submit(std::move(submission));
  if (auto* admitted_now = std::get_if<Admitted>(&outcome)) {
    begin(std::move(prompt), std::move(admitted_now->ticket), false);
  } else if (auto* waiting = std::get_if<Queued>(&outcome)) {
    effects_.react(prompt.ref, sdk::Reaction::queued, true);
    queue_position_ = waiting->position;
    effects_.notice(queued_sentence(waiting->position));
    queued_.emplace(message_id, std::move(prompt));
  } else {
    const auto& rejected = std::get<Rejected>(outcome);
    effects_.answer({prompt.ref, sdk::Reaction::refused, rejected.sentence, prompt.author_id});
    effects_.ended(message_id, TurnOutcome::rejected);
    arm_idle_timer();
  }
}

void TurnRunner::admitted(const std::string& message_id, TurnTicket ticket) {
  const auto it = queued_.find(message_id);
  if (it == queued_.end()) {
    ticket.release();
    return;
  }
  auto waiting = std::move(it->second);
  queued_.erase(it);
  begin(std::move(waiting), std::move(ticket), true);
}

void TurnRunner::expired(const std::string& message_id) {
  const auto it = queued_.find(message_id);
  if (it == queued_.end()) return;
  const auto waited = queue_.snapshot().limits.max_queue_wait;
  effects_.react(it->second.ref, sdk::Reaction::queued, false);
  effects_.answer(
      {it->second.ref, sdk::Reaction::expired, expired_sentence(waited), it->second.author_id});
  effects_.ended(message_id, TurnOutcome::expired);
  queued_.erase(it);
}

void TurnRunner::begin(InboundPrompt prompt, TurnTicket ticket, bool was_queued) {
  if (!open_ || turn_) {
    // The queue admits one turn per session, so a second one here means the session is going.
    ticket.release();
    effects_.react(prompt.ref, sdk::Reaction::stopped, true);
    effects_.ended(prompt.ref.message_id, TurnOutcome::cancelled);
    return;
  }
  ++idle_generation_;
  idle_timer_.cancel();
  ++turn_number_;
  turn_.emplace();
  turn_->prompt = std::move(prompt);
  turn_->ticket = std::move(ticket);
  turn_->was_queued = was_queued;
  turn_->finished = std::make_shared<common::StrandSignal>(strand_);
  effects_.run();
}

bool TurnRunner::withdraw(const std::string& message_id) {
  const auto held = std::find_if(held_.begin(), held_.end(), [&](const InboundPrompt& p) {
    return p.ref.message_id == message_id;
  });
  if (held != held_.end()) {
    held_.erase(held);
  } else if (queued_.count(message_id) != 0 && queue_.withdraw(message_id)) {
    queued_.erase(message_id);
  } else {
    return false;
  }
  effects_.ended(message_id, TurnOutcome::cancelled);
  return true;
}

void TurnRunner::interrupted() {
  abort_timer_.expires_after(timeouts_.abort);
  const auto turn = turn_number_;
  std::weak_ptr<void> alive = alive_;
  abort_timer_.async_wait([this, alive, turn](const boost::system::error_code& ec) {
    if (ec || alive.expired() || !turn_ || turn_number_ != turn) return;
    effects_.stuck();
  });
}

void TurnRunner::agent_done() {
  abort_timer_.cancel();
}

void TurnRunner::finish() {
  if (!turn_) return;
  abort_timer_.cancel();
  auto finished = turn_->finished;
  turn_->ticket.release();
  turn_.reset();
  finished->fire();
  if (open_) arm_idle_timer();
}

std::size_t TurnRunner::close() {
  open_ = false;
  ++idle_generation_;
  idle_timer_.cancel();
  std::size_t count = 0;
  for (const auto& message_id : queue_.cancel_session(session_id_)) {
    const auto it = queued_.find(message_id);
    if (it != queued_.end()) {
      effects_.react(it->second.ref, sdk::Reaction::queued, false);
      effects_.react(it->second.ref, sdk::Reaction::stopped, true);
      queued_.erase(it);
    }
    effects_.ended(message_id, TurnOutcome::cancelled);
    ++count;
  }
  while (!held_.empty()) {
    const auto prompt = std::move(held_.front());
    held_.pop_front();
    effects_.react(prompt.ref, sdk::Reaction::stopped, true);
    effects_.ended(prompt.ref.message_id, TurnOutcome::cancelled);
    ++count;
  }
  return count;
}

void TurnRunner::fail_held() {
  while (!held_.empty()) {
    const auto prompt = std::move(held_.front());
    held_.pop_front();
    effects_.react(prompt.ref, sdk::Reaction::failed, true);
    effects_.ended(prompt.ref.message_id, TurnOutcome::failed);
  }
}

void TurnRunner::arm_idle_timer() {
  const auto generation = ++idle_generation_;
  if (!open_ || turn_ || !queued_.empty()) return;
  idle_timer_.expires_after(timeouts_.idle);
  std::weak_ptr<void> alive = alive_;
  idle_timer_.async_wait([this, alive, generation](const boost::system::error_code& ec) {
    if (ec || alive.expired() || generation != idle_generation_ || !open_ || turn_ ||
        !queued_.empty())
      return;
    effects_.idle();
  });
}

}  // namespace errand::sessions
