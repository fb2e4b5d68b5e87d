// Prompts and turns: each prompt waits for a slot in the daemon's turn queue, then runs as one
// ACP session/prompt rendered into the thread. A slot is given back exactly once, on every path.

#include "core/sessions/session.hpp"

#include <boost/asio/co_spawn.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

namespace {

bool is_image(const sdk::Attachment& attachment) {
  return attachment.content_type.rfind("image/", 0) == 0;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
                   (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
                   (two ? static_cast<unsigned char>(bytes[i + 1]) << 8 : 0);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += two ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

void Session::submit(InboundPrompt prompt) {
  std::weak_ptr<Session> weak = weak_from_this();
  PromptSubmission submission;
  submission.session_id = id();
  submission.message_id = prompt.ref.message_id;
  submission.executor = strand_;
  const std::string message_id = prompt.ref.message_id;
  submission.on_admitted = [weak, message_id](TurnTicket ticket) {
    auto self = weak.lock();
    if (!self) return;
    const auto it = self->queued_.find(message_id);
    if (it == self->queued_.end()) {
      ticket.release();
      return;
    }
    auto waiting = std::move(it->second);
    self->queued_.erase(it);
    self->begin_turn(std::move(waiting), std::move(ticket), true);
  };
  submission.on_position = [weak](std::size_t position) {
    auto self = weak.lock();
    if (self && self->renderer_) self->renderer_->notice(queued_sentence(position));
  };
  submission.on_expired = [weak, message_id] {
    auto self = weak.lock();
    if (!self) return;
    const auto it = self->queued_.find(message_id);
    if (it == self->queued_.end()) return;
    const auto waited = self->services_->queue.snapshot().limits.max_queue_wait;
    self->react(it->second.ref, sdk::Reaction::queued, false);
    self->renderer_->answer_prompt(
        {it->second.ref, sdk::Reaction::expired, expired_sentence(waited), it->second.author_id});
    self->end_turn_record(message_id, TurnOutcome::expired);
    self->queued_.erase(it);
  };
  ++idle_generation_;
  idle_timer_.cancel();
  auto outcome = services_->queue.submit(std::move(submission));
  if (auto* admitted = std::get_if<Admitted>(&outcome)) {
    begin_turn(std::move(prompt), std::move(admitted->ticket), false);
  } else if (auto* queued = std::get_if<Queued>(&outcome)) {
    react(prompt.ref, sdk::Reaction::queued, true);
    renderer_->notice(queued_sentence(queued->position));
    queued_.emplace(message_id, std::move(prompt));
  } else {
    const auto& rejected = std::get<Rejected>(outcome);
    renderer_->answer_prompt(
        {prompt.ref, sdk::Reaction::refused, rejected.sentence, prompt.author_id});
    end_turn_record(message_id, TurnOutcome::rejected);
    arm_idle_timer();
  }
}

void Session::begin_turn(InboundPrompt prompt, TurnTicket ticket, bool was_queued) {
  if (phase_ != Phase::ready || turn_ || !client_) {
    // The queue admits one turn per session, so a second one here means the session is going.
    ticket.release();
    if (renderer_) react(prompt.ref, sdk::Reaction::stopped, true);
    end_turn_record(prompt.ref.message_id, TurnOutcome::cancelled);
    return;
  }
  ++idle_generation_;
  idle_timer_.cancel();
  turn_.emplace();
  turn_->prompt = std::move(prompt);
  turn_->ticket = std::move(ticket);
  turn_->was_queued = was_queued;
  turn_->finished = std::make_shared<common::StrandSignal>(strand_);
  auto self = shared_from_this();
  spawn(run_turn(self));
}

asio::awaitable<std::vector<agent::PromptBlock>> Session::prompt_blocks(const InboundPrompt& p) {
  std::vector<agent::PromptBlock> blocks;
  std::string text = p.text;
  const bool images = client_ && client_->hello().image_prompts;
  for (const auto& attachment : p.attachments) {
    if (images && is_image(attachment)) {
      const sdk::Attachment wanted = attachment;
      const std::size_t limit = 5u << 20;
      auto fetched = co_await services_->chat.fetch_attachment(wanted, limit);
      if (fetched) {
        blocks.push_back(agent::PromptBlock::of_image(base64(*fetched), attachment.content_type));
        continue;
      }
      renderer_->notice("the attachment `" + attachment.filename +
                        "` was not passed on: " + fetched.error().message);
      continue;
    }
    text += "\n(attached, not passed on: " + attachment.filename + ")";
  }
  blocks.insert(blocks.begin(), agent::PromptBlock::of_text(text));
  co_return blocks;
}

asio::awaitable<void> Session::run_turn(std::shared_ptr<Session> self) {
  auto& turn = *turn_;
  auto finished = turn.finished;
  const std::string message_id = turn.prompt.ref.message_id;
  const std::string session_id = id();
  ++turn_number_;
  TurnOutcome outcome = TurnOutcome::failed;
  chat::TurnEnd ending;
  try {
    auto admitted = [message_id, session_id](ThreadsDb& db) -> sdk::Result<void> {
      auto result = db.turn_admitted(message_id, session_id);
      if (!result) return result;
      return db.turn_started(message_id);
    };
    auto recorded = co_await services_->threads.run(admitted);
    if (!recorded) log_->warn("threads.db: {}", recorded.error().message);

    renderer_->begin_turn({turn.prompt.ref, turn.prompt.author_id, turn.was_queued});
    record(boost::json::object{
        {"type", "prompt"}, {"by", turn.prompt.author_id}, {"text", turn.prompt.text}});
    auto blocks = co_await prompt_blocks(turn.prompt);
    const std::string acp_session = acp_session_id_;
    auto result = co_await client_->prompt(acp_session, blocks);
    if (stop_request_ && phase_ != Phase::ready) {
      outcome = stop_request_->running_turn;
      ending.ending = chat::TurnEnding::stopped;
      ending.detail = "the session was stopped (" + stop_request_->reason + ")";
    } else if (!result) {
      outcome = TurnOutcome::failed;
      ending.ending = chat::TurnEnding::failed;
      ending.detail = result.error().message;
    } else {
      switch (result->stop_reason) {
        case agent::StopReason::end_turn:
        case agent::StopReason::other:
          outcome = TurnOutcome::completed;
          ending.ending = chat::TurnEnding::done;
          break;
        case agent::StopReason::cancelled:
          outcome = TurnOutcome::cancelled;
          ending.ending = chat::TurnEnding::stopped;
          ending.detail = "the turn was interrupted";
          break;
        case agent::StopReason::max_tokens:
          outcome = TurnOutcome::failed;
          ending.ending = chat::TurnEnding::failed;
          ending.detail = "the model reached its output limit before it finished";
          break;
        case agent::StopReason::max_turn_requests:
          outcome = TurnOutcome::failed;
          ending.ending = chat::TurnEnding::failed;
          ending.detail = "the agent reached its limit of model requests for one turn";
          break;
        case agent::StopReason::refusal:
          outcome = TurnOutcome::failed;
          ending.ending = chat::TurnEnding::failed;
          ending.detail = "the model refused to continue";
          break;
      }
    }
  } catch (const std::exception& e) {
    outcome = TurnOutcome::failed;
    ending.ending = chat::TurnEnding::failed;
    ending.detail = std::string("errand failed while running the turn: ") + e.what();
  }
  abort_timer_.cancel();
  flush_turn_text();
  record(boost::json::object{{"type", "turn_end"},
                             {"outcome", std::string(to_string(outcome))},
                             {"detail", ending.detail}});
  renderer_->end_turn(ending);
  // Recorded before the slot is given back, so threads.db never shows the next turn starting
  // before this one ended.
  auto ended = [message_id, outcome](ThreadsDb& db) { return db.turn_ended(message_id, outcome); };
  try {
    auto written = co_await services_->threads.run(ended);
    if (!written) log_->warn("threads.db: {}", written.error().message);
  } catch (const std::exception& e) {
    log_->error("session {}: the end of a turn could not be recorded: {}", id(), e.what());
  }
  turn_->ticket.release();
  turn_.reset();
  finished->fire();
  if (phase_ == Phase::ready) arm_idle_timer();
  (void)self;
}

void Session::arm_idle_timer() {
  const auto generation = ++idle_generation_;
  if (phase_ != Phase::ready || turn_ || !queued_.empty()) return;
  idle_timer_.expires_after(std::chrono::milliseconds(setting_ms("timeouts.idleMs", 1800000)));
  std::weak_ptr<Session> weak = weak_from_this();
  idle_timer_.async_wait([weak, generation](const boost::system::error_code& ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self || generation != self->idle_generation_ || self->phase_ != Phase::ready ||
        self->turn_ || !self->queued_.empty())
      return;
    StopRequest idle;
    idle.reason = "idle";
    self->request_stop(std::move(idle));
  });
}

void Session::arm_abort_timer() {
  abort_timer_.expires_after(std::chrono::milliseconds(setting_ms("timeouts.abortMs", 15000)));
  std::weak_ptr<Session> weak = weak_from_this();
  const auto turn = turn_number_;
  abort_timer_.async_wait([weak, turn](const boost::system::error_code& ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self || !self->turn_ || self->turn_number_ != turn) return;
    StopRequest forced;
    forced.reason = "the agent did not stop its turn when interrupted";
    forced.notice =
        "the agent did not stop the turn within timeouts.abortMs of !interrupt, so the session "
        "was stopped; writing here again resumes it.";
    self->request_stop(std::move(forced));
  });
}

}  // namespace errand::sessions
