// A session's life: its start (thread, directories, broker session, sandbox, ACP conversation,
// in that order, each step checking whether a stop was asked for meanwhile) and its stop.

#include "core/sessions/session.hpp"

#include "core/agent/acp_settings.hpp"
#include "core/sandbox/broker_spec.hpp"
#include "core/sessions/session_launch.hpp"
#include "core/sessions/web_identity.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <errand/sdk/config_values.hpp>

// GCC 12 reports asio's coroutine frame allocator as a new/delete mismatch in long coroutines
// (a known false positive; the plugins turn the warning off for the same reason).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace errand::sessions {

namespace asio = boost::asio;

std::shared_ptr<Session> Session::create(std::shared_ptr<const SessionServices> services,
                                         SessionPlan plan, Hooks hooks) {
  auto session =
      std::shared_ptr<Session>(new Session(std::move(services), std::move(plan), std::move(hooks)));
  std::weak_ptr<Session> weak = session;
  session->github_ =
      SessionGithub::create(SessionGithub::Context{.strand = session->strand_,
                                                   .clock = session->services_->clock,
                                                   .log = session->log_,
                                                   .session_id = session->id(),
                                                   .state_dir = session->paths_.state,
                                                   .keep_secret =
                                                       [weak](const std::string& token) {
                                                         if (auto self = weak.lock())
                                                           self->secrets_.add(token);
                                                       },
                                                   .notice =
                                                       [weak](const std::string& text) {
                                                         if (auto self = weak.lock())
                                                           self->notice(text);
                                                       }});
  return session;
}

Session::Session(std::shared_ptr<const SessionServices> services, SessionPlan plan, Hooks hooks)
    : services_(std::move(services)),
      plan_(std::move(plan)),
      hooks_(std::move(hooks)),
      strand_(asio::make_strand(services_->executor)),
      log_(services_->logging.logger("session")),
      secrets_(services_->secrets),
      paths_(SessionPaths::of(services_->state_dir, plan_.session_id)),
      wake_(strand_),
      ended_(strand_),
      created_at_(services_->clock.now()),
      model_(plan_.model),
      ledger_(strand_, services_->threads, log_, plan_.session_id),
      grants_(paths_.record, log_, plan_.session_id),
      turns_(strand_, services_->queue, plan_.session_id,
             {setting_ms("timeouts.idleMs", 1800000), setting_ms("timeouts.abortMs", 15000)},
             turn_effects()),
      output_(turns_, log_, plan_.session_id),
      permissions_(strand_, plan_.owner_id,
                   [this](std::string text, std::vector<std::string> mentions) {
                     if (renderer_) renderer_->notice(std::move(text), std::move(mentions));
                   }) {
  turns_.set_provider(plan_.provider);
}

Session::~Session() = default;

void Session::spawn(asio::awaitable<void> work) {
  asio::co_spawn(strand_, std::move(work),
                 [log = log_, id = plan_.session_id](std::exception_ptr e) {
                   if (!e) return;
                   try {
                     std::rethrow_exception(e);
                   } catch (const std::exception& failure) {
                     log->error("session {}: {}", id, failure.what());
                   }
                 });
}

std::chrono::milliseconds Session::setting_ms(std::string_view key, std::int64_t fallback) const {
  if (!plan_.config) return std::chrono::milliseconds(fallback);
  const auto* v = sdk::find_setting(*plan_.config, key);
  if (v == nullptr) return std::chrono::milliseconds(fallback);
  boost::json::error_code ec;
  const auto n = v->to_number<std::int64_t>(ec);
  return std::chrono::milliseconds(ec || n <= 0 ? fallback : n);
}

void Session::start() {
  asio::post(strand_, [self = shared_from_this()] { self->spawn(self->main(self)); });
}

void Session::request_stop(StopRequest request) {
  asio::post(strand_, [self = shared_from_this(), request = std::move(request)]() mutable {
    if (self->stop_request_ || self->phase_ == Phase::ended) {
      // A deletion after another stop still has to close the thread for good.
      if (request.thread_deleted && self->stop_request_) self->stop_request_->thread_deleted = true;
      return;
    }
    self->stop_request_ = std::move(request);
    self->wake_.fire();
  });
}

asio::awaitable<void> Session::wait_ended() {
  auto self = shared_from_this();
  auto wait_on_strand = [self]() -> asio::awaitable<void> { co_await self->ended_.wait(); };
  co_await asio::co_spawn(strand_, wait_on_strand, asio::use_awaitable);
}

asio::awaitable<void> Session::main(std::shared_ptr<Session> self) {
  sdk::Result<StartResult> result = sdk::make_error("the session did not start");
  try {
    result = co_await start_up();
  } catch (const std::exception& e) {
    result = sdk::make_error(std::string("an unexpected error: ") + e.what());
  }
  if (result && *result == StartResult::started && !stop_request_) {
    phase_ = Phase::ready;
    log_->info("session {}: ready in thread {} (project {})", id(), plan_.thread_id,
               plan_.project_dir.string());
    turns_.open();
    co_await wake_.wait();
  } else if (!result) {
    const std::string why = result.error().message;
    co_await fail_start(why);
    if (!stop_request_) {
      StopRequest failed;
      failed.reason = "could not start: " + why;
      failed.running_turn = TurnOutcome::failed;
      stop_request_ = std::move(failed);
    }
  }
  co_await shut_down();
  (void)self;
}

asio::awaitable<sdk::Result<Session::StartResult>> Session::start_up() {
  if (auto opened = co_await open_thread(); !opened) co_return opened.error();
  if (stop_request_) co_return StartResult::stopped;
  if (!plan_.start_notice.empty()) notice(plan_.start_notice);
  if (auto read = read_house_rules_now(); !read) co_return read.error();
  if (delegate_) services_->delegates->open(id(), delegate_->per_turn);
  if (auto prepared = prepare_session_directories(plan_, paths_, services_->state_dir, *log_);
      !prepared)
    co_return prepared.error();
  if (auto opened = open_record(); !opened) co_return opened.error();
  auto recorded = co_await ledger_.started(plan_, services_->backend_name, services_->clock.now());
  if (!recorded) co_return recorded.error();
  auto sandbox = sandbox::policy_from_config(*plan_.config);
  if (!sandbox) co_return sandbox.error();
  sandbox_ = std::move(*sandbox);
  if (stop_request_) co_return StartResult::stopped;
  if (auto brokered = co_await open_broker(); !brokered) co_return brokered.error();
  if (stop_request_) co_return StartResult::stopped;
  if (const auto& identity = services_->github) {
    auto opened = co_await github_->open(*identity);
    if (!opened) co_return opened.error();
  }
  if (stop_request_) co_return StartResult::stopped;
  auto launched = co_await launch_sandbox();
  if (!launched) co_return launched.error();
  if (stop_request_) co_return StartResult::stopped;
  if (auto talking = co_await open_conversation(*launched); !talking) co_return talking.error();
  if (stop_request_) co_return StartResult::stopped;
  co_return StartResult::started;
}

void Session::create_renderer() {
  auto settings = chat::render_settings_from_config(*plan_.config);
  if (!settings)
    log_->warn("session {}: {}; the default output settings apply", id(), settings.error().message);
  chat::RendererDeps deps{services_->chat, secrets_, services_->clock,
                          services_->logging.logger("render"), nullptr};
  auto render = settings ? *settings : chat::RenderSettings{};
  if (web_interface_only(*plan_.config)) render.post_agent_output = false;
  renderer_ = chat::ThreadRenderer::create(strand_, std::move(deps), plan_.thread_id, render);
  output_.show_in(*renderer_);
}

asio::awaitable<sdk::Result<void>> Session::open_thread() {
  if (!plan_.thread_id.empty()) {
    create_renderer();
    co_return sdk::Result<void>{};
  }
  if (!plan_.opening)
    co_return sdk::make_error("the session has neither a thread nor a message to open one from");
  const sdk::MessageRef from = *plan_.opening;
  const std::string name = plan_.thread_name;
  auto opened = co_await services_->chat.open_thread(from, name);
  if (!opened)
    co_return sdk::make_error("the thread could not be opened: " + opened.error().message);
  plan_.thread_id = opened->id;
  if (hooks_.thread_opened) hooks_.thread_opened(id(), plan_.thread_id);
  create_renderer();
  co_return sdk::Result<void>{};
}

sdk::Result<void> Session::read_house_rules_now() {
  auto rules = read_house_rules(*plan_.config);
  if (!rules) return rules.error();
  house_rules_ = std::move(*rules);
  if (house_rules_) services_->upload_guard.keep(house_rules_->text);
  // What the agent is told about its delegate command travels with the house rules, so it
  // reaches the agent the same way (kage's rules, else the first prompt) and is given again on
  // resume only when it changed.
  delegate_ = delegate_settings(*plan_.config);
  if (delegate_) {
    const std::string guidance = delegate_guidance(*delegate_);
    if (house_rules_)
      house_rules_->text += "\n\n" + guidance;
    else
      house_rules_ = HouseRules{{}, guidance};
  }
  return {};
}

// The transcript, opened with the session's first entry and the house rules it was given.
sdk::Result<void> Session::open_record() {
  auto transcript = chat::TranscriptWriter::open(paths_.record, secrets_, services_->clock);
  if (!transcript)
    return sdk::make_error("the transcript cannot be written: " + transcript.error().message);
  output_.open_transcript(std::move(*transcript));
  boost::json::object entry{{"type", "session"},
                            {"event", plan_.previous_session_id ? "resumed" : "started"},
                            {"session", id()},
                            {"thread", plan_.thread_id},
                            {"project", plan_.project_dir.string()},
                            {"backend", services_->backend_name}};
  if (plan_.previous_session_id) entry["previous"] = *plan_.previous_session_id;
  output_.record(entry);
  // Recorded as given, not posted: the thread is the person's, the rules the operator's.
  if (house_rules_) {
    boost::json::object given{{"type", "house_rules"}, {"text", house_rules_->text}};
    if (!house_rules_->path.empty()) given["path"] = house_rules_->path.string();
    output_.record(given);
    if (auto kept = keep_given_rules(paths_.record, house_rules_->text); !kept)
      log_->warn("session {}: the house rules given could not be kept for a resumed session: {}",
                 id(), kept.error().message);
  }
  return {};
}

asio::awaitable<sdk::Result<void>> Session::open_broker() {
  if (!sandbox_->uses_broker()) co_return sdk::Result<void>{};
  if (services_->broker == nullptr)
    co_return sdk::make_error(
        "the configuration sends this session's traffic through the egress broker, but the "
        "daemon started without one (the configuration it started with did not need it); "
        "restart errand to use the new setting");
  auto spec = sandbox::broker_session_spec(*sandbox_);
  spec.session_id = id();
  spec.socket_path = paths_.broker_socket;
  spec.record_dir = paths_.record;
  spec.owner_id = plan_.owner_id;
  auto opened = co_await services_->broker->open(spec);
  if (!opened)
    co_return sdk::make_error("the egress broker could not open the session: " +
                              opened.error().message);
  secrets_.add(opened->proxy_credential);
  for (const auto& [provider, stand_in] : opened->stand_ins) secrets_.add(stand_in.value);
  broker_session_ = std::move(*opened);
  if (plan_.previous_session_id)
    grants_.carry_from(SessionPaths::of(services_->state_dir, *plan_.previous_session_id).record,
                       *services_->broker, [this](std::string text) { notice(std::move(text)); });
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<SandboxLaunch>> Session::launch_sandbox() {
  auto launch = sandbox_launch(LaunchFacts{.plan = plan_,
                                           .services = *services_,
                                           .paths = paths_,
                                           .policy = *sandbox_,
                                           .broker = broker_session_ ? &*broker_session_ : nullptr,
                                           .github_env = github_->env(),
                                           .house_rules = house_rules_ ? &*house_rules_ : nullptr,
                                           .model = model_,
                                           .delegate = delegate_.has_value()});
  if (!launch) co_return launch.error();
  rules_in_first_prompt_ = house_rules_ && !house_rules_->text.empty() && !launch->took_house_rules;
  auto launched = co_await services_->backend.launch(std::move(launch->spec));
  if (!launched)
    co_return sdk::make_error("the sandbox could not start: " + launched.error().message);
  process_ = std::move(*launched);
  log_->info("session {}: sandbox {} running the agent", id(), services_->backend_name);
  co_return std::move(*launch);
}

asio::awaitable<sdk::Result<void>> Session::open_conversation(const SandboxLaunch& launch) {
  std::weak_ptr<Session> weak = weak_from_this();
  agent::AcpEvents events;
  events.on_update = [weak](const agent::SessionUpdate& update) {
    if (auto self = weak.lock()) self->output_.on_update(update);
  };
  events.on_permission = [weak](agent::PermissionRequest request,
                                agent::PermissionResponder responder) {
    if (auto self = weak.lock()) self->on_permission(std::move(request), std::move(responder));
  };
  events.on_closed = [weak](const std::string& reason) {
    auto self = weak.lock();
    if (!self) return;
    StopRequest ended;
    ended.reason = "the agent ended: " + reason;
    ended.notice = "the agent ended: " + reason + ". Writing here again starts a new session.";
    ended.running_turn = TurnOutcome::failed;
    ended.agent_ended = true;
    self->request_stop(std::move(ended));
  };
  const agent::AgentStdio stdio{process_->stdin_fd(), process_->stdout_fd(), process_->stderr_fd()};
  if (auto connected = conversation_.connect(strand_, stdio, std::move(events),
                                             agent::acp_client_options_from(*plan_.config), log_);
      !connected)
    co_return connected.error();
  AgentConversation::Opening opening;
  opening.session_id = id();
  opening.environment_names = launch.environment_names;
  opening.record_dir = paths_.record;
  if (plan_.previous_session_id)
    opening.previous_record =
        SessionPaths::of(services_->state_dir, *plan_.previous_session_id).record;
  opening.config_options = launch.config_options;
  opening.replaying = [this](bool replaying) { output_.set_replaying(replaying); };
  opening.notice = [this](std::string text) { notice(std::move(text)); };
  auto opened = co_await conversation_.open(opening);
  if (!opened) co_return opened.error();
  // The conversation it loaded began with the rules; they are given again only when they were
  // edited since.
  if (opened->loaded && house_rules_ &&
      read_given_rules(*opening.previous_record) == house_rules_->text)
    rules_in_first_prompt_ = false;
  if (opened->model) model_ = *opened->model;
  // A backend that keeps the thread's sandbox says itself when it could not.
  if (plan_.previous_session_id)
    notice(std::string(sdk::find_extension<sdk::KeptSandboxes>(services_->backend) != nullptr
                           ? "resumed; "
                           : "resumed in a new sandbox; ") +
           opened->resume_note + ".");
  co_return sdk::Result<void>{};
}

asio::awaitable<void> Session::fail_start(const std::string& why) {
  log_->error("session {}: could not start: {}", id(), why);
  if (renderer_) {
    renderer_->notice("the session could not start: " + why + ". Writing here again tries again.");
  } else if (plan_.opening) {
    ReplyTo to;
    to.message = *plan_.opening;
    to.author_id = plan_.owner_id;
    const std::string sentence = "no session was started: " + why;
    co_await refuse_prompt(services_->chat, secrets_, to, sdk::Reaction::failed, sentence);
  }
  turns_.fail_held();
}

void Session::drop_waiting_prompts() {
  const auto count = turns_.close();
  if (count > 0)
    notice(std::to_string(count) + (count == 1 ? " waiting prompt was" : " waiting prompts were") +
           " dropped because the session ended; send again to resume it.");
}

asio::awaitable<void> Session::archive_thread() {
  const std::string thread_id = plan_.thread_id;
  auto archived = co_await services_->chat.close_thread(thread_id);
  if (!archived) {
    log_->warn("session {}: the thread could not be archived: {}", id(), archived.error().message);
    co_return;
  }
  // Recorded, so that `errand threads collect` finds the thread while it stays resumable.
  co_await ledger_.thread_archived(thread_id);
}

asio::awaitable<void> Session::shut_down() {
  phase_ = Phase::stopping;
  StopRequest request = stop_request_ ? *stop_request_ : StopRequest{};
  log_->info("session {}: stopping ({})", id(), request.reason);
  permissions_.close();
  drop_waiting_prompts();
  github_->close();

  if (broker_session_ && services_->broker != nullptr) {
    const std::string session_id = id();
    co_await services_->broker->close(session_id);
  }
  if (process_) {
    // A process exists only once the session's policy was built, so its grace period is known.
    auto exit = co_await process_->stop(sandbox_->limits.grace);
    log_->info("session {}: sandbox stopped{}{}", id(),
               exit.detail.empty() ? "" : ": " + exit.detail,
               exit.cleanup_complete ? "" : "; left behind: " + exit.cleanup_detail);
    // A session the sandbox ended at one of its limits (memory, processes, disk, ...) says which
    // in the thread, rather than only that the agent went away.
    if (request.agent_ended && exit.limit != sdk::LimitCause::none)
      request.notice = "the session stopped at a limit: " + exit.detail +
                       ". Writing here again starts a new session.";
  }
  conversation_.close("the session ended");
  // The running turn ends now that the agent is gone; it gives its slot back itself.
  if (auto* turn = turns_.current()) {
    auto finished = turn->finished;
    co_await finished->wait();
  }
  conversation_.release();
  services_->delegates->close(id());
  process_.reset();

  co_await ledger_.ended(request.reason);
  if (request.thread_deleted && !plan_.thread_id.empty())
    co_await ledger_.thread_closed(plan_.thread_id);
  if (output_.has_transcript()) {
    output_.record(
        boost::json::object{{"type", "session"}, {"event", "ended"}, {"reason", request.reason}});
  }
  if (renderer_) {
    if (!request.notice.empty() && !request.thread_deleted) renderer_->notice(request.notice);
    co_await renderer_->drain();
  }
  plan_.reservation.release();
  phase_ = Phase::ended;
  log_->info("session {}: ended ({})", id(), request.reason);
  if (hooks_.ended) hooks_.ended(id(), plan_.thread_id);
  if (request.archive_thread && !request.thread_deleted && !plan_.thread_id.empty())
    co_await archive_thread();
  if (hooks_.finished) hooks_.finished();
  ended_.fire();
}

}  // namespace errand::sessions
