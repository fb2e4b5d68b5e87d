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

TurnRunner::Effects Session::turn_effects() {
  TurnRunner::Effects effects;
  effects.react = [this](const sdk::MessageRef& ref, sdk::Reaction reaction, bool add) {
    react(ref, reaction, add);
  };
  effects.notice = [this](std::string text) {
    if (renderer_) renderer_->notice(std::move(text));
  };
  effects.answer = [this](chat::PromptAnswer answer) {
    if (renderer_) renderer_->answer_prompt(std::move(answer));
  };
  effects.ended = [this](const std::string& message_id, TurnOutcome outcome) {
    end_turn_record(message_id, outcome);
  };
  // The runner begins turns only between ready and stopping, while the agent's client exists.
  effects.run = [this] { spawn(run_turn(shared_from_this())); };
  effects.idle = [this] {
    StopRequest idle;
    idle.reason = "idle";
    request_stop(std::move(idle));
  };
  effects.stuck = [this] {
    StopRequest forced;
    forced.reason = "the agent did not stop its turn when interrupted";
    forced.notice =
        "the agent did not stop the turn within timeouts.abortMs of !interrupt, so the session "
        "was stopped; writing here again resumes it.";
    request_stop(std::move(forced));
  };
  return effects;
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
  auto& turn = *turns_.current();
  const std::string message_id = turn.prompt.ref.message_id;
  const std::string session_id = id();
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
  turns_.agent_done();
  flush_turn_text();
  boost::json::object turn_end{{"type", "turn_end"},
                               {"outcome", std::string(to_string(outcome))},
                               {"detail", ending.detail}};
  if (usage_) {
    boost::json::object usage{{"used", usage_->used}, {"size", usage_->size}};
    if (usage_->cost_amount) {
      usage["cost"] = *usage_->cost_amount;
      usage["currency"] = usage_->cost_currency;
    }
    turn_end["usage"] = std::move(usage);
  }
  record(turn_end);
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
  turns_.finish();
  (void)self;
}

}  // namespace errand::sessions
