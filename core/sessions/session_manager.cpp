// The session manager's intake and what it owns: the one queue every chat event, slash command
// and web message waits in, handled one at a time on the strand; the broker's reports on
// providers and delegates; the web interface's door; and the sessions that run.

#include "core/sessions/session_manager.hpp"

#include "core/agent/model_price.hpp"
#include "core/config/string_settings.hpp"

#include "core/chat/commands.hpp"
#include "core/sessions/web_identity.hpp"

#include "common/strand_signal.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <errand/sdk/config_values.hpp>

namespace errand::sessions {

namespace asio = boost::asio;
namespace json = boost::json;

std::shared_ptr<SessionManager> SessionManager::create(SessionServices services,
                                                       const json::object& config) {
  return std::shared_ptr<SessionManager>(new SessionManager(std::move(services), config));
}

SessionManager::SessionManager(SessionServices services, const json::object& config)
    : services_(std::make_shared<const SessionServices>(std::move(services))),
      strand_(asio::make_strand(services_->executor)),
      log_(services_->logging.logger("sessions")),
      settings_(read_settings(config)),
      wake_(strand_) {
  wake_.expires_at(asio::steady_timer::time_point::max());
}

SessionManager::~SessionManager() = default;

SessionManager::Settings SessionManager::read_settings(const json::object& config) {
  Settings s;
  s.config = std::make_shared<const json::object>(config);
  s.access = chat::access_lists_from_config(config);
  if (web_interface_drives(config)) s.access.operator_ids.emplace_back(kWebInterfaceUser);
  s.channel_id = sessions::served_channel_id(config);
  if (const auto* mention = sdk::find_setting(config, "chat.startOnMention");
      mention != nullptr && mention->is_bool())
    s.start_on_mention = mention->as_bool();
  s.project_root = config::string_setting(config, "projectRoot");
  return s;
}

void SessionManager::update_config(const json::object& config) {
  auto settings = read_settings(config);
  asio::post(strand_, [self = shared_from_this(), settings = std::move(settings)]() mutable {
    if (agent::agent_kind(*settings.config) != self->glue_kind_) self->glue_.reset();
    self->settings_ = std::move(settings);
  });
}

void SessionManager::enqueue(Event event) {
  asio::post(strand_, [self = shared_from_this(), event = std::move(event)]() mutable {
    if (self->stopping_) {
      self->drop(event);
      return;
    }
    const bool start = self->events_.empty();
    self->events_.push_back(std::move(event));
    if (start) self->wake_.cancel();
  });
}

asio::awaitable<void> SessionManager::pump(std::shared_ptr<SessionManager> self) {
  while (!stopping_) {
    if (events_.empty()) {
      boost::system::error_code ec;
      wake_.expires_at(asio::steady_timer::time_point::max());
      co_await wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    auto event = std::move(events_.front());
    events_.pop_front();
    try {
      co_await handle(event);
    } catch (const std::exception& e) {
      log_->error("an inbound event could not be handled: {}", e.what());
    }
  }
  (void)self;
}

asio::awaitable<void> SessionManager::handle(Event& event) {
  if (auto* message = std::get_if<sdk::InboundMessage>(&event)) {
    co_await handle_message(*message);
  } else if (auto* deleted = std::get_if<sdk::MessageDeleted>(&event)) {
    handle_deleted(*deleted);
  } else if (auto* closed = std::get_if<sdk::ThreadClosed>(&event)) {
    handle_thread_closed(*closed);
  } else if (auto* call = std::get_if<sdk::CommandCall>(&event)) {
    co_await handle_slash(*call);
  } else if (auto* web = std::get_if<WebMessage>(&event)) {
    co_await handle_web(*web);
  }
}

asio::awaitable<void> SessionManager::register_commands() {
  auto self = shared_from_this();
  auto work = [self]() -> asio::awaitable<void> {
    // The pump starts here: events are only taken once the manager is wired up.
    asio::co_spawn(self->strand_, self->pump(self), asio::detached);
    auto specs = chat::slash_command_specs();
    auto registered = co_await self->services_->chat.register_commands(specs);
    if (!registered)
      self->log_->warn(
          "the slash commands could not be registered ({}); the ! commands work "
          "as typed messages",
          registered.error().message);
  };
  co_await asio::co_spawn(strand_, work, asio::use_awaitable);
}

asio::awaitable<void> SessionManager::stop_all() {
  auto self = shared_from_this();
  auto collect = [self]() -> asio::awaitable<std::vector<std::shared_ptr<Session>>> {
    self->stopping_ = true;
    for (auto& event : self->events_) self->drop(event);
    self->events_.clear();
    self->wake_.cancel();
    std::vector<std::shared_ptr<Session>> live;
    for (const auto& [id, session] : self->sessions_) live.push_back(session);
    co_return live;
  };
  auto live = co_await asio::co_spawn(strand_, collect, asio::use_awaitable);
  for (const auto& session : live) {
    StopRequest stop;
    stop.reason = "the daemon stopped";
    stop.notice = "errand is stopping; writing here again once it is back resumes this session.";
    stop.running_turn = TurnOutcome::interrupted;
    session->request_stop(std::move(stop));
  }
  for (const auto& session : live) co_await session->wait_ended();
  log_->info("{} session(s) stopped", live.size());
  if (kept_) kept_->stop();
}

void SessionManager::keep_sandboxes_with(sdk::KeptSandboxes& backend) {
  kept_ = KeptSandboxKeeper::create(strand_, backend, services_->threads, log_);
  kept_->start();
}

asio::awaitable<void> SessionManager::tell_ended_session(std::string session_id, std::string text) {
  auto find = [session_id](ThreadsDb& db) { return db.find_session(session_id); };
  auto found = co_await services_->threads.run(find);
  if (!found || !*found || (*found)->thread_id.empty()) {
    log_->warn("session {}: the sandbox's notice has no thread to go to{}", session_id,
               found ? "" : ": " + found.error().message);
    co_return;
  }
  co_await post_in_thread(services_->chat, services_->secrets, (*found)->thread_id, text);
}

void SessionManager::on_message(const sdk::InboundMessage& message) noexcept {
  try {
    enqueue(message);
  } catch (const std::exception& e) {
    log_->error("an inbound message was lost: {}", e.what());
  }
}

void SessionManager::on_message_deleted(const sdk::MessageDeleted& deleted) noexcept {
  try {
    enqueue(deleted);
  } catch (const std::exception& e) {
    log_->error("a message deletion was lost: {}", e.what());
  }
}

void SessionManager::on_thread_closed(const sdk::ThreadClosed& closed) noexcept {
  try {
    enqueue(closed);
  } catch (const std::exception& e) {
    log_->error("a thread closing was lost: {}", e.what());
  }
}

void SessionManager::on_command(const sdk::CommandCall& call) noexcept {
  try {
    enqueue(call);
  } catch (const std::exception& e) {
    log_->error("a slash command was lost: {}", e.what());
  }
}

void SessionManager::on_reaction(const sdk::ReactionEvent& reaction) noexcept {
  log_->trace("reaction {} by {} on {}", reaction.glyph, reaction.user.id, reaction.ref.message_id);
}

void SessionManager::on_connection(sdk::ConnectionState state, const std::string& detail) noexcept {
  switch (state) {
    case sdk::ConnectionState::ready: log_->info("the chat connection is ready"); break;
    case sdk::ConnectionState::halted:
      log_->error("the chat connection gave up: {}", detail);
      break;
    case sdk::ConnectionState::disconnected:
      log_->warn("the chat connection dropped: {}", detail);
      break;
    default: log_->debug("chat connection: {}", detail); break;
  }
}

void SessionManager::on_host_refused(const std::string& session_id, const std::string& host,
                                     std::uint16_t port, bool suggestable) noexcept {
  try {
    asio::post(strand_, [self = shared_from_this(), session_id, host, port, suggestable] {
      const auto it = self->sessions_.find(session_id);
      if (it != self->sessions_.end()) it->second->host_refused(host, port, suggestable);
    });
  } catch (const std::exception& e) {
    log_->error("a refused host could not be reported: {}", e.what());
  }
}

void SessionManager::tell_session(const std::string& session_id, const std::string& text) noexcept {
  try {
    asio::post(strand_, [self = shared_from_this(), session_id, text] {
      self->log_->info("session {}: the sandbox says: {}", session_id, text);
      const auto it = self->sessions_.find(session_id);
      if (it != self->sessions_.end()) {
        it->second->tell(text);
        return;
      }
      asio::co_spawn(
          self->strand_,
          [self, session_id, text] { return self->tell_ended_session(session_id, text); },
          asio::detached);
    });
  } catch (const std::exception& e) {
    log_->error("a notice of session {}'s sandbox could not be passed on: {}", session_id,
                e.what());
  }
}

void SessionManager::on_provider_paused(const std::string& provider,
                                        std::chrono::system_clock::time_point until) noexcept {
  try {
    services_->queue.pause(provider, until);
    asio::post(strand_, [self = shared_from_this(), provider] { self->tell_if_spent(provider); });
  } catch (const std::exception& e) {
    log_->error("a provider pause could not be applied: {}", e.what());
  }
}

void SessionManager::on_provider_resumed(const std::string& provider) noexcept {
  try {
    services_->queue.resume(provider);
  } catch (const std::exception& e) {
    log_->error("a provider resume could not be applied: {}", e.what());
  }
}

void SessionManager::on_provider_usage(const sdk::ProviderUsage& usage) noexcept {
  try {
    asio::post(strand_, [self = shared_from_this(), usage] {
      self->providers_.keep_usage(usage.provider, usage);
      self->tell_if_spent(usage.provider);
    });
  } catch (const std::exception& e) {
    log_->error("a provider's limits could not be kept: {}", e.what());
  }
}

void* SessionManager::extension(std::string_view name) noexcept {
  return sdk::offer_extension<sdk::DelegateCalls>(this, name);
}

std::string SessionManager::admit_delegate(const std::string& session_id) noexcept {
  try {
    return services_->delegates->admit(session_id);
  } catch (const std::exception& e) {
    return std::string("the daemon could not count this delegate call: ") + e.what();
  }
}

void SessionManager::on_delegate_finished(const sdk::DelegateReport& report) noexcept {
  try {
    // Priced on the strand, where the configuration and kage's catalog are read and replaced.
    asio::post(strand_, [self = shared_from_this(), report] {
      std::optional<double> cost = report.reported_cost;
      if (!cost && (report.input_tokens || report.output_tokens))
        cost = agent::priced_call(*self->settings_.config, self->providers_.catalog(),
                                  report.provider, report.model, report.input_tokens.value_or(0),
                                  report.output_tokens.value_or(0));
      self->services_->delegates->finish(report, cost);
      self->log_->info(
          "session {}: delegate call to {}/{} ended {} ({} characters kept out)", report.session_id,
          report.provider, report.model,
          report.outcome == sdk::DelegateReport::Outcome::answered ? "answered" : report.detail,
          report.artefact_chars);
    });
  } catch (const std::exception& e) {
    log_->error("a delegate call could not be counted: {}", e.what());
  }
}

void SessionManager::tell_if_spent(const std::string& provider) {
  const auto spent =
      providers_.spent_now(provider, services_->queue.snapshot(), services_->clock.now());
  if (!spent) return;
  const auto now = services_->clock.now();
  for (const auto& [session_id, session] : sessions_) {
    if (session->provider() != provider) continue;
    if (!spent_notices_.should_tell(session_id, *spent, now)) continue;
    session->tell(spent_clause(*spent) +
                  "; this session keeps its model, and its owner may switch with `!model`");
  }
}

void SessionManager::drop(Event& event) {
  if (auto* web = std::get_if<WebMessage>(&event))
    web->done("errand is stopping and takes nothing new; try again once it is back");
}

asio::awaitable<void> SessionManager::handle_web(WebMessage& web) {
  web_verdict_ = WebVerdict{web.message.ref.message_id, std::nullopt};
  try {
    co_await handle_message(web.message);
  } catch (...) {
    web_verdict_.reset();
    web.done("errand failed while handling the message; its log says why");
    throw;
  }
  auto refusal = std::move(web_verdict_->refusal);
  web_verdict_.reset();
  web.done(std::move(refusal));
}

asio::awaitable<sdk::Result<void>> SessionManager::handle_from_web(sdk::InboundMessage message) {
  // The verdict is handed back on this coroutine's executor, where the signal lives.
  auto executor = co_await asio::this_coro::executor;
  struct Verdict {
    explicit Verdict(asio::any_io_executor on) : done(std::move(on)) {}
    common::StrandSignal done;
    std::optional<std::string> refusal;
  };
  auto verdict = std::make_shared<Verdict>(executor);
  WebMessage web{std::move(message), [verdict, executor](std::optional<std::string> refusal) {
                   asio::post(executor, [verdict, refusal = std::move(refusal)]() mutable {
                     verdict->refusal = std::move(refusal);
                     verdict->done.fire();
                   });
                 }};
  enqueue(std::move(web));
  co_await verdict->done.wait();
  if (verdict->refusal) co_return sdk::Error{sdk::Error::Kind::refused, *verdict->refusal};
  co_return sdk::Result<void>{};
}

asio::awaitable<std::vector<LiveSession>> SessionManager::live_sessions() {
  auto self = shared_from_this();
  auto collect = [self]() -> asio::awaitable<std::vector<std::shared_ptr<Session>>> {
    std::vector<std::shared_ptr<Session>> out;
    for (const auto& [id, session] : self->sessions_) out.push_back(session);
    co_return out;
  };
  const auto sessions = co_await asio::co_spawn(strand_, collect, asio::use_awaitable);
  std::vector<LiveSession> live;
  for (const auto& session : sessions) {
    auto one = co_await session->snapshot();
    live.push_back(std::move(one));
  }
  co_return live;
}

std::shared_ptr<commands::CommandHost> SessionManager::shared_host() {
  // Aliases the manager's own ownership: the host lives exactly as long as the manager.
  return std::shared_ptr<commands::CommandHost>(shared_from_this(),
                                                static_cast<commands::CommandHost*>(this));
}

}  // namespace errand::sessions
