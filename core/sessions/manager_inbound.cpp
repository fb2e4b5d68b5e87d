// Inbound messages and slash commands: where they were written (the served channel, a thread the
// daemon knows, or neither), who wrote them, and what they are (an aside, a command, a prompt);
// a prompt's session planned and launched, a command checked for access and handed to its
// handler (core/commands/), and the answers and refusals they get.

#include "core/agent/kage_catalog_source.hpp"
#include "core/chat/commands.hpp"
#include "core/sessions/fallback_start.hpp"
#include "core/sessions/session_manager.hpp"
#include "core/sessions/session_naming.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <errand/sdk/config_values.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

std::string SessionManager::without_mention(std::string_view text) const {
  std::string out(text);
  const auto self_id = services_->chat.self_id();
  if (self_id.empty()) return out;
  for (const std::string& mention : {"<@" + self_id + ">", "<@!" + self_id + ">"}) {
    std::size_t at = 0;
    while ((at = out.find(mention, at)) != std::string::npos) out.erase(at, mention.size());
  }
  const auto first = out.find_first_not_of(" \t\r\n");
  return first == std::string::npos ? std::string() : out.substr(first);
}

void SessionManager::reply(const ReplyTo& to, std::string text) {
  auto services = services_;
  auto send = [services, to, text = std::move(text)]() -> asio::awaitable<void> {
    co_await send_reply(services->chat, services->secrets, to, text);
  };
  asio::co_spawn(strand_, send, asio::detached);
}

void SessionManager::note_refusal(const ReplyTo& to, const std::string& sentence) {
  if (web_verdict_ && !to.slash && to.message.message_id == web_verdict_->message_id)
    web_verdict_->refusal = sentence;
}

void SessionManager::refuse(const ReplyTo& to, const std::string& sentence) {
  note_refusal(to, sentence);
  reply(to, sentence);
}

asio::awaitable<std::optional<KnownThread>> SessionManager::find_thread(
    const std::string& thread_id) {
  KnownThread known;
  if (const auto it = thread_sessions_.find(thread_id); it != thread_sessions_.end()) {
    if (const auto session = sessions_.find(it->second); session != sessions_.end())
      known.live = session->second;
  }
  auto lookup = [thread_id](ThreadsDb& db) { return db.find_thread(thread_id); };
  auto found = co_await services_->threads.run(lookup);
  if (!found) {
    log_->error("threads.db: {}", found.error().message);
  } else if (*found) {
    known.record = std::move(**found);
  }
  if (!known.live && !known.record) co_return std::nullopt;
  co_return known;
}

asio::awaitable<std::optional<KnownThread>> SessionManager::adopt_lost_thread(
    const std::string& thread_id) {
  auto lookup = [thread_id](ThreadsDb& db) { return db.find_unrecorded_opening(thread_id); };
  auto opening = co_await services_->threads.run(lookup);
  if (!opening) {
    log_->error("threads.db: {}", opening.error().message);
    co_return std::nullopt;
  }
  if (!*opening) co_return std::nullopt;
  // The opening's text is gone with the daemon that read it, so the project is the one a
  // message naming none gets.
  std::string unused;
  SessionPlan plan = fresh_channel_plan("", unused);
  choose_start_provider(plan);
  ThreadRecord record;
  record.thread_id = thread_id;
  record.project_name = plan.project_name;
  record.project_path = plan.project_dir.string();
  record.owner_id = (*opening)->asked_by;
  record.model = thread_model(*settings_.config, plan.provider, plan.model);
  record.state = ThreadState::resumable;
  auto adopt = [record](ThreadsDb& db) { return db.adopt_thread(record); };
  if (auto adopted = co_await services_->threads.run(adopt); !adopted) {
    log_->error("threads.db could not adopt thread {}: {}", thread_id, adopted.error().message);
    co_return std::nullopt;
  }
  log_->warn(
      "thread {} was opened from message {} but never recorded (a restart cut in); "
      "adopted for {}",
      thread_id, thread_id, record.owner_id);
  KnownThread known;
  known.record = std::move(record);
  co_return known;
}

asio::awaitable<SessionManager::Admission> SessionManager::admit(
    const sdk::InboundMessage& message) {
  NewTurn turn;
  turn.message_id = message.ref.message_id;
  turn.thread_id = message.thread_id;
  turn.asked_by = message.author.id;
  auto call = [turn](ThreadsDb& db) { return db.admit_message(turn); };
  auto admitted = co_await services_->threads.run(call);
  if (!admitted) {
    log_->error("threads.db could not record message {}: {}; it is refused", message.ref.message_id,
                admitted.error().message);
    co_return Admission::unrecorded;
  }
  if (!*admitted) {
    log_->info("message {} was seen before (a replay); it starts nothing again",
               message.ref.message_id);
    co_return Admission::replay;
  }
  co_return Admission::admitted;
}

asio::awaitable<void> SessionManager::handle_message(const sdk::InboundMessage& message) {
  if (message.author.is_bot) co_return;
  const bool in_thread = !message.thread_id.empty();
  std::optional<KnownThread> thread;
  if (in_thread) {
    thread = co_await find_thread(message.thread_id);
    if (!thread) thread = co_await adopt_lost_thread(message.thread_id);
    // A thread no session ever ran in is someone else's business.
    if (!thread) co_return;
  } else if (message.ref.channel_id != settings_.channel_id) {
    co_return;
  }
  const auto where = in_thread ? chat::Where::thread : chat::Where::channel;
  const auto text = without_mention(message.text);
  const auto classified = chat::classify_message(text, where);
  const auto to = ReplyTo::typed(message);

  if (std::holds_alternative<chat::IgnoredMessage>(classified)) co_return;
  if (std::holds_alternative<chat::AsideMessage>(classified)) {
    // An aside is for the people in the thread; the agent never sees it.
    if (in_thread) {
      const sdk::MessageRef ref = message.ref;
      co_await services_->chat.react(ref, sdk::Reaction::aside, true);
    }
    co_return;
  }
  if (const auto* refusal = std::get_if<chat::CommandRefusal>(&classified)) {
    note_refusal(to, refusal->sentence);
    reply(to, refusal->sentence);
    co_return;
  }
  // !then is a prompt with a rule of its own; every other command is answered here.
  const auto* command = std::get_if<chat::ParsedCommand>(&classified);
  const bool after_turn = command != nullptr && command->id() == chat::CommandId::then;
  if (command != nullptr && !after_turn) {
    co_await run_command(*command, to, thread);
    co_return;
  }
  const std::string prompt_text =
      after_turn ? *command->argument("prompt") : std::get<chat::PromptMessage>(classified).text;
  if (!in_thread && settings_.start_on_mention && !message.mentions_bot) co_return;
  if (prompt_text.find_first_not_of(" \t\r\n") == std::string::npos && message.attachments.empty())
    co_return;
  chat::AccessRequest request{
      message.author.id, thread ? thread->owner_id() : std::string_view{},
      after_turn  ? "!then"
      : in_thread ? "a prompt"
                  : "starting a session",
      thread ? std::span<const std::string>(thread->guests()) : std::span<const std::string>()};
  const auto required = after_turn ? command->required_access() : chat::CommandAccess::allowed;
  if (auto allowed = chat::check_access(required, request, settings_.access); !allowed) {
    const std::string sentence = allowed.error().message;
    note_refusal(to, sentence);
    co_await refuse_prompt(services_->chat, services_->secrets, to, sdk::Reaction::refused,
                           sentence);
    co_return;
  }
  switch (co_await admit(message)) {
    case Admission::admitted: break;
    case Admission::replay: co_return;
    case Admission::unrecorded: {
      const std::string sentence =
          "errand could not record this message, so it started nothing; send it again";
      note_refusal(to, sentence);
      co_await refuse_prompt(services_->chat, services_->secrets, to, sdk::Reaction::refused,
                             sentence);
      co_return;
    }
  }
  if (in_thread)
    co_await thread_prompt(message, prompt_text, *thread, after_turn);
  else
    co_await channel_prompt(message, prompt_text);
}

asio::awaitable<sdk::Result<std::shared_ptr<const agent::AgentGlue>>> SessionManager::agent_glue() {
  const auto& config = *settings_.config;
  const std::string kind = agent::agent_kind(config);
  if (glue_ && glue_kind_ == kind) co_return glue_;
  if (agent::glue_needs_kage_catalog(config) && !providers_.kage_catalog) {
    // The daemon hands over the catalog it learnt at start-up; this asks only when a reload
    // switched agent.kind to kage afterwards.
    auto discovered = co_await agent::kage_catalog_for(
        strand_, agent::kage_discovery_options(config),
        agent::image_kage_of(services_->backend, services_->capabilities), log_);
    if (!discovered) co_return discovered.error();
    providers_.kage_catalog = std::move(*discovered);
  }
  auto glue = agent::make_agent_glue(config, providers_.catalog());
  if (!glue) co_return glue.error();
  glue_ = std::shared_ptr<const agent::AgentGlue>(std::move(*glue));
  glue_kind_ = kind;
  co_return glue_;
}

std::shared_ptr<Session> SessionManager::launch(SessionPlan plan, const InboundPrompt& first) {
  std::weak_ptr<SessionManager> weak = weak_from_this();
  Session::Hooks hooks;
  hooks.thread_opened = [weak](const std::string& session_id, const std::string& thread_id) {
    auto self = weak.lock();
    if (!self) return;
    asio::post(self->strand_, [self, session_id, thread_id] {
      if (self->sessions_.count(session_id) != 0) self->thread_sessions_[thread_id] = session_id;
    });
  };
  hooks.ended = [weak](const std::string& session_id, const std::string& thread_id) {
    auto self = weak.lock();
    if (!self) return;
    asio::post(self->strand_, [self, session_id, thread_id] {
      self->sessions_.erase(session_id);
      self->spent_notices_.forget(session_id);
      const auto it = self->thread_sessions_.find(thread_id);
      if (it != self->thread_sessions_.end() && it->second == session_id)
        self->thread_sessions_.erase(it);
    });
  };
  hooks.finished = [weak] {
    if (auto self = weak.lock(); self && self->kept_) self->kept_->ask_soon();
  };
  const auto thread_id = plan.thread_id;
  auto session = Session::create(services_, std::move(plan), std::move(hooks));
  sessions_[session->id()] = session;
  if (!thread_id.empty()) thread_sessions_[thread_id] = session->id();
  session->prompt(first);
  session->start();
  return session;
}

asio::awaitable<bool> SessionManager::refuse_if_project_live(const sdk::InboundMessage& message,
                                                             const std::string& project_name,
                                                             std::string_view advice) {
  const bool live = std::any_of(sessions_.begin(), sessions_.end(), [&](const auto& entry) {
    return entry.second->project_name() == project_name;
  });
  if (!live) co_return false;
  const std::string sentence = "the project `" + project_name + "` " + std::string(advice);
  co_await refuse_turn(message, sentence, TurnOutcome::rejected);
  co_return true;
}

asio::awaitable<void> SessionManager::refuse_turn(const sdk::InboundMessage& message,
                                                  const std::string& sentence,
                                                  TurnOutcome outcome) {
  const auto to = ReplyTo::typed(message);
  note_refusal(to, sentence);
  co_await refuse_prompt(services_->chat, services_->secrets, to, sdk::Reaction::refused, sentence);
  const std::string message_id = message.ref.message_id;
  auto end = [message_id, outcome](ThreadsDb& db) { return db.turn_ended(message_id, outcome); };
  auto ended = co_await services_->threads.run(end);
  if (!ended) log_->warn("threads.db: {}", ended.error().message);
}

asio::awaitable<bool> SessionManager::complete_plan(SessionPlan& plan,
                                                    const sdk::InboundMessage& message,
                                                    std::string_view refusal_prefix) {
  // The live-session place is taken before the glue (which may first ask the host's kage), and
  // goes back to the queue when this returns false and the reservation is dropped.
  auto reservation = services_->queue.reserve_session(plan.session_id);
  if (!reservation) {
    const std::string sentence = std::string(refusal_prefix) + reservation.error().message;
    co_await refuse_turn(message, sentence, TurnOutcome::rejected);
    co_return false;
  }
  auto glue = co_await agent_glue();
  if (!glue) {
    const std::string sentence = std::string(refusal_prefix) + glue.error().message;
    co_await refuse_turn(message, sentence, TurnOutcome::failed);
    co_return false;
  }
  plan.config = settings_.config;
  plan.glue = std::move(*glue);
  plan.reservation = std::move(*reservation);
  co_return true;
}

SessionPlan SessionManager::fresh_channel_plan(std::string_view text,
                                               std::string& prompt_text) const {
  SessionPlan plan;
  prompt_text = std::string(text);
  if (auto named = project_named_in(text)) {
    plan.project_name = named->name;
    prompt_text = named->rest;
  }
  plan.session_id = new_session_id(plan.project_name);
  if (plan.project_name.empty()) plan.project_name = plan.session_id;
  plan.project_dir = settings_.project_root / plan.project_name;
  return plan;
}

asio::awaitable<void> SessionManager::channel_prompt(const sdk::InboundMessage& message,
                                                     const std::string& text) {
  std::string prompt_text;
  SessionPlan plan = fresh_channel_plan(text, prompt_text);
  const bool refused = co_await refuse_if_project_live(
      message, plan.project_name,
      "already has a live session; write in its thread, or `!stop` that session first");
  if (refused) co_return;
  const bool planned = co_await complete_plan(plan, message, "no session was started: ");
  if (!planned) co_return;
  choose_start_provider(plan);
  plan.opening = message.ref;
  plan.thread_name = thread_name_from(text);
  plan.owner_id = message.author.id;
  InboundPrompt first{message.ref, message.author.id, prompt_text, message.attachments};
  auto session = launch(std::move(plan), first);
  log_->info("session {} started by {} from message {}", session->id(), message.author.id,
             message.ref.message_id);
}

asio::awaitable<void> SessionManager::thread_prompt(const sdk::InboundMessage& message,
                                                    const std::string& text, KnownThread& thread,
                                                    bool after_turn) {
  InboundPrompt prompt{message.ref, message.author.id, text, message.attachments};
  if (thread.live) {
    if (after_turn)
      thread.live->prompt_after_turn(std::move(prompt));
    else
      thread.live->prompt(std::move(prompt));
    co_return;
  }
  const auto& record = *thread.record;
  if (record.state == ThreadState::closed) {
    const std::string sentence =
        "this thread was closed for good, so nothing resumes it; start a new session in the "
        "channel";
    co_await refuse_turn(message, sentence, TurnOutcome::rejected);
    co_return;
  }
  const bool refused = co_await refuse_if_project_live(
      message, record.project_name, "has a live session in another thread; `!stop` it there first");
  if (refused) co_return;
  SessionPlan plan;
  plan.session_id = new_session_id(is_project_name(record.project_name) ? record.project_name : "");
  const bool planned = co_await complete_plan(plan, message, "the session was not resumed: ");
  if (!planned) co_return;
  plan.thread_id = record.thread_id;
  plan.project_name = record.project_name;
  plan.project_dir = record.project_path;
  plan.owner_id = record.owner_id;
  plan.guests = record.guests;
  restore_start_provider(plan, record.model);
  if (!record.last_session_id.empty()) plan.previous_session_id = record.last_session_id;
  auto session = launch(std::move(plan), prompt);
  log_->info("session {} resumes thread {} for {}", session->id(), record.thread_id,
             message.author.id);
}

void SessionManager::handle_thread_closed(const sdk::ThreadClosed& closed) {
  const auto it = thread_sessions_.find(closed.thread_id);
  if (it != thread_sessions_.end()) {
    if (const auto session = sessions_.find(it->second); session != sessions_.end()) {
      StopRequest stop;
      stop.reason = closed.deleted ? "the thread was deleted" : "the thread was archived";
      stop.thread_deleted = closed.deleted;
      session->second->request_stop(std::move(stop));
      if (closed.deleted) return;
    }
  }
  auto services = services_;
  auto log = log_;
  const std::string thread_id = closed.thread_id;
  const bool deleted = closed.deleted;
  // A deleted thread is closed for good; an archived one stays resumable, and is marked so
  // that collect can find it.
  auto kept = kept_;
  auto mark = [services, log, thread_id, deleted, kept]() -> asio::awaitable<void> {
    auto close = [thread_id, deleted](ThreadsDb& db) -> sdk::Result<void> {
      auto found = db.find_thread(thread_id);
      if (!found || !*found) return {};
      if (!deleted) return db.set_thread_archived(thread_id);
      return db.set_thread_state(thread_id, ThreadState::closed);
    };
    auto closed_now = co_await services->threads.run(close);
    if (!closed_now) log->warn("threads.db: {}", closed_now.error().message);
    // The thread's kept sandbox is not wanted any more.
    if (kept) kept->ask_soon();
  };
  asio::co_spawn(strand_, mark, asio::detached);
}

void SessionManager::handle_deleted(const sdk::MessageDeleted& deleted) {
  const auto it = thread_sessions_.find(deleted.ref.channel_id);
  if (it == thread_sessions_.end()) return;
  if (const auto session = sessions_.find(it->second); session != sessions_.end())
    session->second->withdraw(deleted.ref.message_id);
}

void SessionManager::choose_start_provider(SessionPlan& plan) const {
  auto choice = choose_start(*settings_.config, [this](std::string_view provider) {
    return providers_.spent_now(provider, services_->queue.snapshot(), services_->clock.now());
  });
  if (!choice.notice.empty()) log_->info("session {}: {}", plan.session_id, choice.notice);
  plan.provider = std::move(choice.provider);
  if (!choice.model.empty()) plan.model = std::move(choice.model);
  plan.start_notice = std::move(choice.notice);
}

void SessionManager::restore_start_provider(SessionPlan& plan,
                                            std::string_view recorded_model) const {
  auto restored = restore_thread_model(*settings_.config, recorded_model);
  plan.provider = std::move(restored.provider);
  plan.model = std::move(restored.model);
}

asio::awaitable<void> SessionManager::run_command(const chat::ParsedCommand& command,
                                                  const ReplyTo& to,
                                                  const std::optional<KnownThread>& thread) {
  const std::string action = "!" + std::string(command.definition->name);
  const std::string owner = thread ? thread->owner_id() : std::string();
  chat::AccessRequest request{
      to.author_id, owner, action,
      thread ? std::span<const std::string>(thread->guests()) : std::span<const std::string>()};
  if (auto allowed = chat::check_access(command.required_access(), request, settings_.access);
      !allowed) {
    refuse(to, allowed.error().message);
    co_return;
  }
  const commands::CommandCall call{command, to, thread, *this};
  // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
  auto handling = command.definition->handle(call);
  co_await std::move(handling);
}

asio::awaitable<void> SessionManager::handle_slash(const sdk::CommandCall& call) {
  const bool in_channel = call.channel_id == settings_.channel_id;
  std::optional<KnownThread> thread;
  if (!in_channel) thread = co_await find_thread(call.channel_id);
  const sdk::CommandCall acknowledged = call;
  auto ack = co_await services_->chat.acknowledge(acknowledged, sdk::Visibility::everyone);
  if (!ack)
    log_->warn("slash command /{} could not be acknowledged: {}", call.name, ack.error().message);
  const auto to = ReplyTo::command(call);
  if (!in_channel && !thread) {
    reply(to, "errand answers its commands in the served channel and in its sessions' threads");
    co_return;
  }
  const auto where = in_channel ? chat::Where::channel : chat::Where::thread;
  auto parsed = chat::parse_slash_command(call, where);
  if (const auto* refusal = std::get_if<chat::CommandRefusal>(&parsed)) {
    reply(to, refusal->sentence);
    co_return;
  }
  co_await run_command(std::get<chat::ParsedCommand>(parsed), to, thread);
}

}  // namespace errand::sessions
