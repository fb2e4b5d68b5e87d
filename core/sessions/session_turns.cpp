// Prompts and turns: each prompt waits for a slot in the daemon's turn queue, then runs as one
// ACP session/prompt rendered into the thread. A slot is given back exactly once, on every path.

#include "core/agent/state_files.hpp"

#include "common/base64/base64.hpp"
#include "core/sessions/attachment_inbox.hpp"
#include "core/sessions/session.hpp"

#include <boost/asio/co_spawn.hpp>
#include <set>

namespace errand::sessions {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

bool is_image(const sdk::Attachment& attachment) {
  return attachment.content_type.rfind("image/", 0) == 0;
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

// A refused attachment refuses only itself: the prompt still runs with the rest, and both the
// thread and the agent are told exactly which file did not arrive and why.
asio::awaitable<std::vector<agent::PromptBlock>> Session::prompt_blocks(const InboundPrompt& p) {
  std::vector<agent::PromptBlock> blocks;
  std::vector<std::string> refused;
  std::set<fs::path> saved;
  const bool images = client_ && client_->hello().image_prompts;
  const auto limits = attachment_limits(*plan_.config);
  for (std::size_t i = 0; i < p.attachments.size(); ++i) {
    const sdk::Attachment attachment = p.attachments[i];
    if (auto refusal = attachment_refusal(attachment, i, limits)) {
      refused.push_back(std::move(*refusal));
      continue;
    }
    if (images && is_image(attachment)) {
      auto fetched = co_await services_->chat.fetch_attachment(attachment, limits.max_bytes);
      if (!fetched) {
        refused.push_back("`" + attachment.filename +
                          "` was not passed on: " + fetched.error().message);
        continue;
      }
      blocks.push_back(
          agent::PromptBlock::of_image(base64::encode(*fetched), attachment.content_type));
      continue;
    }
    auto relative = inbox_relative_path(p.ref.message_id, attachment.filename);
    // Two attachments of one message may share a name; neither may replace the other.
    if (saved.count(relative) != 0)
      relative.replace_filename(std::to_string(i + 1) + "-" + relative.filename().string());
    saved.insert(relative);
    auto block = co_await inbox_block(relative, attachment, limits.max_bytes);
    if (!block) {
      refused.push_back(block.error().message);
      continue;
    }
    blocks.push_back(std::move(*block));
  }
  std::string text = p.text;
  std::string notice;
  for (const auto& why : refused) {
    text += "\n(" + why + ")";
    notice += "\n- " + why;
  }
  if (!refused.empty() && renderer_)
    renderer_->notice("not every attachment reached the agent:" + notice);
  blocks.insert(blocks.begin(), agent::PromptBlock::of_text(text));
  if (rules_in_first_prompt_ && house_rules_) {
    blocks.insert(blocks.begin(),
                  agent::PromptBlock::of_text(house_rules_prompt_text(house_rules_->text)));
    rules_in_first_prompt_ = false;
  }
  co_return blocks;
}

asio::awaitable<sdk::Result<agent::PromptBlock>> Session::inbox_block(
    const fs::path& relative, const sdk::Attachment& attachment, std::uint64_t max_bytes) {
  const std::string name = relative.filename().string();
  auto fetched = co_await services_->chat.fetch_attachment(attachment, max_bytes);
  if (!fetched)
    co_return sdk::make_error("`" + attachment.filename +
                              "` was not passed on: " + fetched.error().message);
  // The size the chat service announced is the sender's word; the bytes are what count.
  if (fetched->size() > max_bytes)
    co_return sdk::make_error(over_byte_limit(attachment.filename, fetched->size(), max_bytes));
  if (auto written = agent::write_beneath(paths_.state, relative, *fetched); !written)
    co_return sdk::make_error("`" + attachment.filename +
                              "` could not be saved for the agent: " + written.error().message);
  co_return agent::PromptBlock::of_resource_link(inbox_uri(relative), name, attachment.content_type,
                                                 fetched->size());
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
    services_->delegates->turn_started(session_id);
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
  services_->delegates->turn_ended(session_id);
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
