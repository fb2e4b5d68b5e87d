#include "core/sessions/session.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <errand/sdk/config_values.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

std::shared_ptr<Session> Session::create(std::shared_ptr<const SessionServices> services,
                                         SessionPlan plan, Hooks hooks) {
  auto session =
      std::shared_ptr<Session>(new Session(std::move(services), std::move(plan), std::move(hooks)));
  std::weak_ptr<Session> weak = session;
  session->github_ = SessionGithub::create(
      SessionGithub::Context{.strand = session->strand_,
                             .clock = session->services_->clock,
                             .log = session->log_,
                             .session_id = session->id(),
                             .state_dir = session->paths_.state,
                             .keep_secret =
                                 [weak](const std::string& token) {
                                   if (auto self = weak.lock()) self->secrets_.add(token);
                                 },
                             .notice =
                                 [weak](const std::string& text) {
                                   if (auto self = weak.lock(); self && self->renderer_)
                                     self->renderer_->notice(text);
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
      turns_(strand_, services_->queue, plan_.session_id,
             {setting_ms("timeouts.idleMs", 1800000), setting_ms("timeouts.abortMs", 15000)},
             turn_effects()),
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

void Session::start() {
  asio::post(strand_, [self = shared_from_this()] { self->spawn(self->main(self)); });
}

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
      end_turn_record(prompt.ref.message_id, TurnOutcome::rejected);
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

void Session::end_turn_record(const std::string& message_id, TurnOutcome outcome) {
  auto services = services_;
  auto log = log_;
  auto record = [services, log, message_id, outcome]() -> asio::awaitable<void> {
    auto call = [&](ThreadsDb& db) { return db.turn_ended(message_id, outcome); };
    auto ended = co_await services->threads.run(call);
    if (!ended) log->warn("threads.db: {}", ended.error().message);
  };
  asio::co_spawn(strand_, record, asio::detached);
}

std::chrono::milliseconds Session::setting_ms(std::string_view key, std::int64_t fallback) const {
  if (!plan_.config) return std::chrono::milliseconds(fallback);
  const auto* v = sdk::find_setting(*plan_.config, key);
  if (v == nullptr) return std::chrono::milliseconds(fallback);
  boost::json::error_code ec;
  const auto n = v->to_number<std::int64_t>(ec);
  return std::chrono::milliseconds(ec || n <= 0 ? fallback : n);
}

}  // namespace errand::sessions
