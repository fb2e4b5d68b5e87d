// The commands that act on a live session (!interrupt, !model, !grant, !status, !pr), the
// agent's permission questions under agent.permissions "ask", and the broker's refusals the
// thread should hear about.

#include "core/agent/agent_glue.hpp"
#include "core/sessions/fallback_start.hpp"
#include "core/sessions/session.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

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

void Session::interrupt(ReplyTo to) {
  asio::post(strand_, [self = shared_from_this(), to = std::move(to)] {
    if (!self->turns_.running() || !self->client_) {
      self->reply(to, "no turn is running in this session, so there is nothing to interrupt");
      return;
    }
    self->client_->cancel(self->acp_session_id_);
    self->reply(to, "interrupting the running turn; the session stays open");
    self->turns_.interrupted();
  });
}

void Session::switch_model(std::string model, ReplyTo to, std::string preface) {
  auto self = shared_from_this();
  auto work = [self, model = std::move(model), to = std::move(to),
               preface = std::move(preface)]() -> asio::awaitable<void> {
    if (self->phase_ != Phase::ready || !self->client_) {
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
    const std::string session_id = self->acp_session_id_;
    const std::string option = "model";
    const std::string value = choice.model;
    auto set = co_await self->client_->set_config_option(session_id, option, value);
    if (!set) {
      self->reply(to,
                  preface + "the agent did not switch to `" + value + "`: " + set.error().message);
      co_return;
    }
    if (!choice.thinking_level.empty()) {
      const std::string thinking = "thinking";
      const std::string level = choice.thinking_level;
      auto leveled = co_await self->client_->set_config_option(session_id, thinking, level);
      if (!leveled)
        self->reply(to, "the agent did not take the thinking level `" + level +
                            "`: " + leveled.error().message);
    }
    self->model_ = model;
    const std::string thread_id = self->plan_.thread_id;
    // A session on a fallback provider keeps it with the model, so a resume returns there.
    const std::string kept = thread_model(*self->plan_.config, self->plan_.provider, model);
    auto save = [thread_id, kept](ThreadsDb& db) { return db.set_thread_model(thread_id, kept); };
    auto saved = co_await self->services_->threads.run(save);
    if (!saved) self->log_->warn("threads.db: {}", saved.error().message);
    self->record(boost::json::object{{"type", "model"}, {"model", model}});
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
    self->record(boost::json::object{
        {"type", "grant"}, {"host", grant.host}, {"by", to.author_id}, {"span", span_text(grant)}});
    if (grant.span == sdk::GrantSpan::always)
      self->keep_carried_grant({granted->host, to.author_id});
    self->reply(to, "`" + grant.host + "` is granted " + span_text(grant) + ".");
  });
}

std::string Session::status_text() const {
  std::string text = fmt::format("session `{}` in project `{}` ({})", id(), plan_.project_name,
                                 plan_.project_dir.string());
  text += fmt::format("\nmodel: {}",
                      model_.empty() ? std::string("the configured default") : "`" + model_ + "`");
  switch (phase_) {
    case Phase::starting: text += "\nstarting"; break;
    case Phase::stopping:
    case Phase::ended: text += "\nstopping"; break;
    case Phase::ready:
      text += turns_.running() ? "\na turn is running" : "\nidle, waiting for a prompt";
      break;
  }
  if (turns_.queued() > 0)
    text += fmt::format("\n{} prompt(s) of this thread waiting", turns_.queued());
  const auto queue = services_->queue.snapshot();
  text += fmt::format("\nturn slots: {} of {} in use, {} waiting in the queue",
                      queue.turns_in_flight, queue.limits.max_concurrent_turns, queue.queued);
  if (queue.paused_until) text += "\n" + pause_sentence(queue, services_->clock.now());
  if (usage_ && usage_->size > 0)
    text += fmt::format("\ncontext: {} of {} tokens used", usage_->used, usage_->size);
  if (usage_ && usage_->cost_amount)
    text += fmt::format("\ncost so far: {:.4f} {}", *usage_->cost_amount, usage_->cost_currency);
  if (const auto delegated = services_->delegates->stats(id()))
    text += "\n" + describe_delegates(*delegated);
  return text;
}

void Session::status(ReplyTo to) {
  asio::post(strand_, [self = shared_from_this(), to = std::move(to)] {
    self->reply(to, self->status_text());
  });
}

void Session::host_refused(std::string host, std::uint16_t port, bool suggestable) {
  asio::post(strand_, [self = shared_from_this(), host = std::move(host), port, suggestable] {
    self->record(boost::json::object{
        {"type", "host_refused"}, {"host", host}, {"port", port}, {"suggestable", suggestable}});
    if (!suggestable || !self->renderer_) return;
    self->renderer_->notice(fmt::format(
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
  record(boost::json::object{
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
    end_turn_record(answer.ref.message_id, TurnOutcome::rejected);
    return;
  }
  record(boost::json::object{
      {"type", "permission"}, {"option", *answered.chosen}, {"by", answer.author_id}});
  react(answer.ref, sdk::Reaction::done, true);
  end_turn_record(answer.ref.message_id, TurnOutcome::completed);
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
  record(boost::json::object{{"type", "pull_request"},
                             {"number", opened->number},
                             {"url", opened->url},
                             {"branch", opened->branch}});
  reply(to, fmt::format("opened pull request #{} from `{}`: {}", opened->number, opened->branch,
                        opened->url));
  (void)self;
}

}  // namespace errand::sessions
