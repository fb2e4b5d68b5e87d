#include "core/sessions/session_manager.hpp"

#include "core/agent/model_price.hpp"
#include "core/config/string_settings.hpp"

#include "core/chat/commands.hpp"
#include "core/sessions/web_identity.hpp"

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

const std::string& SessionManager::KnownThread::owner_id() const {
  static const std::string none;
  if (live) return live->owner_id();
  return record ? record->owner_id : none;
}

const std::vector<std::string>& SessionManager::KnownThread::guests() const {
  static const std::vector<std::string> none;
  return record ? record->guests : none;
}

const std::string& SessionManager::KnownThread::project_name() const {
  static const std::string none;
  if (live) return live->project_name();
  return record ? record->project_name : none;
}

std::filesystem::path SessionManager::KnownThread::project_dir() const {
  if (live) return live->project_dir();
  return record ? std::filesystem::path(record->project_path) : std::filesystem::path();
}

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
  s.channel_id = served_channel_id(config);
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
      auto& kept = self->usage_[usage.provider];
      // Answers finish out of order; an older report never replaces a newer one.
      if (usage.observed_at >= kept.observed_at) kept = usage;
      self->tell_if_spent(usage.provider);
    });
  } catch (const std::exception& e) {
    log_->error("a provider's limits could not be kept: {}", e.what());
  }
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
        cost = agent::priced_call(*self->settings_.config,
                                  self->kage_catalog_ ? &*self->kage_catalog_ : nullptr,
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

}  // namespace errand::sessions
