// What a live session is asked: prompts, each waiting for a slot in the daemon's turn queue and
// then running as one ACP session/prompt rendered into the thread (a slot is given back exactly
// once, on every path); the chat commands that act on it (!interrupt, !model, !grant, !status,
// !pr); the agent's permission questions under agent.permissions "ask"; the broker's refusals
// the thread should hear about; and its report for the web interface.

#include "core/agent/agent_glue.hpp"
#include "core/sessions/fallback_start.hpp"
#include "core/sessions/prompt_blocks.hpp"
#include "core/sessions/session.hpp"
#include "core/sessions/turn_ending.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

namespace {

std::string span_text(const chat::GrantArgument& grant) {
  switch (grant.span) {
    case sdk::GrantSpan::once: return "for its next connection";
    case sdk::GrantSpan::always:
      return "for the rest of this session and every session resumed in this thread";
    case sdk::GrantSpan::until:
      return "for " + describe_duration(
                          std::chrono::duration_cast<std::chrono::milliseconds>(grant.duration));
  }
  return "";
}

}  // namespace

void Session::reply(const ReplyTo& to, std::string text) {
  auto services = services_;
  auto self = shared_from_this();
  auto send = [services, self, to, text = std::move(text)]() -> asio::awaitable<void> {
    co_await send_reply(services->chat, self->secrets_, to, text);
  };
  asio::co_spawn(strand_, send, asio::detached);
}

void Session::react(const sdk::MessageRef& ref, sdk::Reaction reaction, bool add) {
  if (renderer_) renderer_->react(ref, reaction, add);
}

void Session::notice(std::string text) {
  if (renderer_) renderer_->notice(std::move(text));
}

void Session::tell(std::string notice) {
  asio::post(strand_, [self = shared_from_this(), notice = std::move(notice)] {
    if (self->phase_ == Phase::stopping || self->phase_ == Phase::ended) return;
    self->notice(notice);
  });
}

// Prompts and turns.

void Session::prompt(InboundPrompt prompt) {
  asio::post(strand_, [self = shared_from_this(), prompt = std::move(prompt)]() mutable {
    if (self->permissions_.is_open() && prompt.author_id == self->plan_.owner_id) {
      self->answer_question(std::move(prompt));
      return;
    }
    self->take_turn(std::move(prompt));
  });
}

void Session::prompt_after_turn(InboundPrompt prompt) {
  asio::post(strand_, [self = shared_from_this(), prompt = std::move(prompt)]() mutable {
    self->take_turn(std::move(prompt));
  });
}

void Session::take_turn(InboundPrompt prompt) {
  switch (phase_) {
    case Phase::starting: turns_.hold(std::move(prompt)); return;
    case Phase::ready: turns_.submit(std::move(prompt)); return;
    case Phase::stopping:
    case Phase::ended: {
      if (renderer_) {
        renderer_->answer_prompt(
            {prompt.ref, sdk::Reaction::refused,
             "this session is stopping; send the message again once it has stopped and it "
             "will start a new one",
             prompt.author_id});
      }
      ledger_.turn_ended_later(prompt.ref.message_id, TurnOutcome::rejected);
      return;
    }
  }
}

void Session::withdraw(std::string message_id) {
  asio::post(strand_, [self = shared_from_this(), message_id = std::move(message_id)] {
    if (self->turns_.withdraw(message_id))
      self->log_->info("session {}: a deleted message was withdrawn from the queue", self->id());
  });
}

TurnRunner::Effects Session::turn_effects() {
  TurnRunner::Effects effects;
  effects.react = [this](const sdk::MessageRef& ref, sdk::Reaction reaction, bool add) {
    react(ref, reaction, add);
  };
  effects.notice = [this](std::string text) { notice(std::move(text)); };
  effects.answer = [this](chat::PromptAnswer answer) {
    if (renderer_) renderer_->answer_prompt(std::move(answer));
  };
  effects.ended = [this](const std::string& message_id, TurnOutcome outcome) {
    ledger_.turn_ended_later(message_id, outcome);
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

// The prompt's blocks, with the house rules ahead of them in the first prompt of an agent that
// did not take them at launch.
asio::awaitable<std::vector<agent::PromptBlock>> Session::turn_blocks(const InboundPrompt& prompt) {
  const bool images = conversation_.connected() && conversation_.hello().image_prompts;
  const auto limits = attachment_limits(*plan_.config);
  auto made = co_await prompt_blocks(services_->chat, limits, images, paths_.state, prompt);
  if (!made.refused.empty()) {
    std::string listed;
    for (const auto& why : made.refused) listed += "\n- " + why;
    notice("not every attachment reached the agent:" + listed);
  }
  if (rules_in_first_prompt_ && house_rules_) {
    made.blocks.insert(made.blocks.begin(),
                       agent::PromptBlock::of_text(house_rules_prompt_text(house_rules_->text)));
    rules_in_first_prompt_ = false;
  }
  co_return std::move(made.blocks);
}

asio::awaitable<void> Session::run_turn(std::shared_ptr<Session> self) {
  auto& turn = *turns_.current();
  const std::string message_id = turn.prompt.ref.message_id;
  const std::string session_id = id();
  TurnVerdict verdict;
  try {
    co_await ledger_.turn_began(message_id);
    renderer_->begin_turn({turn.prompt.ref, turn.prompt.author_id, turn.was_queued});
    services_->delegates->turn_started(session_id);
    output_.record(boost::json::object{
        {"type", "prompt"}, {"by", turn.prompt.author_id}, {"text", turn.prompt.text}});
    auto blocks = co_await turn_blocks(turn.prompt);
    auto result = co_await conversation_.prompt(std::move(blocks));
    verdict = stop_request_ && phase_ != Phase::ready
                  ? stopped_turn_verdict(stop_request_->running_turn, stop_request_->reason)
                  : turn_verdict(result);
  } catch (const std::exception& e) {
    verdict.outcome = TurnOutcome::failed;
    verdict.ending = {chat::TurnEnding::failed,
                      std::string("errand failed while running the turn: ") + e.what()};
  }
  turns_.agent_done();
  services_->delegates->turn_ended(session_id);
  output_.flush_turn_text();
  boost::json::object turn_end{{"type", "turn_end"},
                               {"outcome", std::string(to_string(verdict.outcome))},
                               {"detail", verdict.ending.detail}};
  if (const auto& usage = output_.usage()) {
    boost::json::object used{{"used", usage->used}, {"size", usage->size}};
    if (usage->cost_amount) {
      used["cost"] = *usage->cost_amount;
      used["currency"] = usage->cost_currency;
    }
    turn_end["usage"] = std::move(used);
  }
  output_.record(turn_end);
  renderer_->end_turn(verdict.ending);
  // Recorded before the slot is given back, so threads.db never shows the next turn starting
  // before this one ended.
  try {
    co_await ledger_.turn_ended(message_id, verdict.outcome);
  } catch (const std::exception& e) {
    log_->error("session {}: the end of a turn could not be recorded: {}", id(), e.what());
  }
  turns_.finish();
  (void)self;
}

// Commands on a live session.

void Session::interrupt(ReplyTo to) {
  asio::post(strand_, [self = shared_from_this(), to = std::move(to)] {
    if (!self->turns_.running() || !self->conversation_.connected()) {
      self->reply(to, "no turn is running in this session, so there is nothing to interrupt");
      return;
    }
    self->conversation_.cancel();
    self->reply(to, "interrupting the running turn; the session stays open");
    self->turns_.interrupted();
  });
}

void Session::switch_model(std::string model, ReplyTo to, std::string preface) {
  auto self = shared_from_this();
  auto work = [self, model = std::move(model), to = std::move(to),
               preface = std::move(preface)]() -> asio::awaitable<void> {
    if (self->phase_ != Phase::ready || !self->conversation_.connected()) {
      self->reply(to, "the session is not ready to change models; try again in a moment");
      co_return;
    }
    if (self->turns_.running()) {
      self->reply(to,
                  "!model is refused while a turn runs, since the turn would end on another "
                  "model than it started on; try again when it has finished");
      co_return;
    }
    const auto choice = agent::choose_model(*self->plan_.config, model);
    const std::string value = choice.model;
    auto set = co_await self->conversation_.set_option("model", value);
    if (!set) {
      self->reply(to,
                  preface + "the agent did not switch to `" + value + "`: " + set.error().message);
      co_return;
    }
    if (!choice.thinking_level.empty()) {
      const std::string level = choice.thinking_level;
      auto leveled = co_await self->conversation_.set_option("thinking", level);
      if (!leveled)
        self->reply(to, "the agent did not take the thinking level `" + level +
                            "`: " + leveled.error().message);
    }
    self->model_ = model;
    // A session on a fallback provider keeps it with the model, so a resume returns there.
    auto kept = thread_model(*self->plan_.config, self->plan_.provider, model);
    co_await self->ledger_.keep_model(self->plan_.thread_id, std::move(kept));
    self->output_.record(boost::json::object{{"type", "model"}, {"model", model}});
    self->reply(to, preface + "this session now uses `" + value +
                        "`; the conversation so far is kept, and the thread stays on it when "
                        "it resumes");
  };
  asio::co_spawn(strand_, work, asio::detached);
}

void Session::grant(chat::GrantArgument grant, ReplyTo to) {
  asio::post(strand_, [self = shared_from_this(), grant = std::move(grant), to = std::move(to)] {
    if (!self->broker_session_ || self->services_->broker == nullptr) {
      self->reply(to,
                  "this session has no egress broker (sandbox.egress.mode is open or "
                  "sandbox.network is not restricted), so there is nothing to grant");
      return;
    }
    sdk::GrantRequest request;
    request.host = grant.host;
    request.span = grant.span;
    request.granted_by = to.author_id;
    if (grant.span == sdk::GrantSpan::until)
      request.until = self->services_->clock.now() + grant.duration;
    auto granted = self->services_->broker->grant(self->id(), std::move(request));
    if (!granted) {
      self->reply(to, "the grant was refused: " + granted.error().message);
      return;
    }
    self->output_.record(boost::json::object{
        {"type", "grant"}, {"host", grant.host}, {"by", to.author_id}, {"span", span_text(grant)}});
    if (grant.span == sdk::GrantSpan::always) self->grants_.keep({granted->host, to.author_id});
    self->reply(to, "`" + grant.host + "` is granted " + span_text(grant) + ".");
  });
}

void Session::status(ReplyTo to) {
  asio::post(strand_, [self = shared_from_this(), to = std::move(to)] {
    self->reply(to, session_status_text(self->facts(), *self->services_));
  });
}

void Session::host_refused(std::string host, std::uint16_t port, bool suggestable) {
  asio::post(strand_, [self = shared_from_this(), host = std::move(host), port, suggestable] {
    self->output_.record(boost::json::object{
        {"type", "host_refused"}, {"host", host}, {"port", port}, {"suggestable", suggestable}});
    if (!suggestable) return;
    self->notice(fmt::format(
        "the agent tried to reach `{0}` (port {1}), which is not on the egress allowlist. "
        "`!grant {0}` lets its next connection through; `!grant {0} 10m` or "
        "`!grant {0} always` for longer.",
        host, port));
  });
}

void Session::on_permission(agent::PermissionRequest request,
                            agent::PermissionResponder responder) {
  boost::json::array options;
  for (const auto& option : request.options)
    options.push_back(boost::json::object{{"id", option.id}, {"name", option.name}});
  output_.record(boost::json::object{
      {"type", "permission_asked"}, {"title", request.title}, {"options", std::move(options)}});
  permissions_.ask(std::move(request), std::move(responder),
                   setting_ms("timeouts.questionMs", 300000));
}

void Session::answer_question(InboundPrompt answer) {
  const auto answered = permissions_.answer(answer.text);
  if (!answered.chosen) {
    if (renderer_)
      renderer_->answer_prompt(
          {answer.ref, sdk::Reaction::refused, answered.refusal, answer.author_id});
    ledger_.turn_ended_later(answer.ref.message_id, TurnOutcome::rejected);
    return;
  }
  output_.record(boost::json::object{
      {"type", "permission"}, {"option", *answered.chosen}, {"by", answer.author_id}});
  react(answer.ref, sdk::Reaction::done, true);
  ledger_.turn_ended_later(answer.ref.message_id, TurnOutcome::completed);
}

void Session::open_pull_request(std::string title, ReplyTo to) {
  spawn(answer_pull_request(shared_from_this(), std::move(title), std::move(to)));
}

// The arguments are the coroutine's own: a lambda's captures would not outlive its first
// suspension.
asio::awaitable<void> Session::answer_pull_request(std::shared_ptr<Session> self, std::string title,
                                                   ReplyTo to) {
  auto opened = co_await github_->pull_request(std::move(title), plan_.project_dir);
  if (!opened) {
    reply(to, "!pr was refused: " + opened.error().message);
    co_return;
  }
  output_.record(boost::json::object{{"type", "pull_request"},
                                     {"number", opened->number},
                                     {"url", opened->url},
                                     {"branch", opened->branch}});
  reply(to, fmt::format("opened pull request #{} from `{}`: {}", opened->number, opened->branch,
                        opened->url));
  (void)self;
}

// Its report.

SessionFacts Session::facts() const {
  return SessionFacts{plan_, phase_, model_, created_at_, turns_, output_, permissions_};
}

asio::awaitable<LiveSession> Session::snapshot() {
  auto self = shared_from_this();
  auto take = [self]() -> asio::awaitable<LiveSession> {
    co_return describe_live_session(self->facts());
  };
  co_return co_await asio::co_spawn(strand_, take, asio::use_awaitable);
}

}  // namespace errand::sessions
