#include "core/sessions/session_ledger.hpp"

#include "core/sessions/fallback_start.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

namespace {

// Its own frame holds all it needs, so a record still in flight when the session is gone (a
// prompt refused as the session ended) is written all the same.
asio::awaitable<void> record_turn_end(ThreadsStore& threads, std::shared_ptr<spdlog::logger> log,
                                      std::string message_id, TurnOutcome outcome) {
  auto end = [message_id, outcome](ThreadsDb& db) { return db.turn_ended(message_id, outcome); };
  auto written = co_await threads.run(end);
  if (!written) log->warn("threads.db: {}", written.error().message);
}

}  // namespace

SessionLedger::SessionLedger(asio::any_io_executor strand, ThreadsStore& threads,
                             std::shared_ptr<spdlog::logger> log, std::string session_id)
    : strand_(std::move(strand)),
      threads_(threads),
      log_(std::move(log)),
      session_id_(std::move(session_id)) {}

asio::awaitable<sdk::Result<void>> SessionLedger::started(
    const SessionPlan& plan, const std::string& backend,
    std::chrono::system_clock::time_point now) {
  if (!plan.previous_session_id) {
    ThreadRecord thread;
    thread.thread_id = plan.thread_id;
    thread.project_name = plan.project_name;
    thread.project_path = plan.project_dir.string();
    thread.owner_id = plan.owner_id;
    thread.guests = plan.guests;
    thread.model = thread_model(*plan.config, plan.provider, plan.model);
    thread.created_at = now;
    thread.updated_at = now;
    thread.state = ThreadState::live;
    thread.last_session_id = session_id_;
    auto save = [thread](ThreadsDb& db) { return db.save_thread(thread); };
    auto saved = co_await threads_.run(save);
    if (!saved)
      co_return sdk::make_error("threads.db refused the thread: " + saved.error().message);
  }
  SessionRecord session;
  session.session_id = session_id_;
  session.thread_id = plan.thread_id;
  session.backend = backend;
  session.started_at = now;
  auto start = [session](ThreadsDb& db) { return db.session_started(session); };
  auto started = co_await threads_.run(start);
  if (!started)
    co_return sdk::make_error("threads.db refused the session: " + started.error().message);
  recorded_ = true;
  co_return sdk::Result<void>{};
}

asio::awaitable<void> SessionLedger::ended(std::string reason) {
  if (!recorded_) co_return;
  auto end = [session_id = session_id_, reason](ThreadsDb& db) {
    return db.session_ended(session_id, reason);
  };
  auto written = co_await threads_.run(end);
  if (!written) log_->error("threads.db: {}", written.error().message);
}

asio::awaitable<void> SessionLedger::turn_began(std::string message_id) {
  auto admitted = [message_id, session_id = session_id_](ThreadsDb& db) -> sdk::Result<void> {
    auto result = db.turn_admitted(message_id, session_id);
    if (!result) return result;
    return db.turn_started(message_id);
  };
  auto recorded = co_await threads_.run(admitted);
  if (!recorded) log_->warn("threads.db: {}", recorded.error().message);
}

asio::awaitable<void> SessionLedger::turn_ended(std::string message_id, TurnOutcome outcome) {
  co_await record_turn_end(threads_, log_, std::move(message_id), outcome);
}

void SessionLedger::turn_ended_later(std::string message_id, TurnOutcome outcome) {
  asio::co_spawn(strand_, record_turn_end(threads_, log_, std::move(message_id), outcome),
                 asio::detached);
}

asio::awaitable<void> SessionLedger::keep_model(std::string thread_id, std::string model) {
  auto save = [thread_id, model](ThreadsDb& db) { return db.set_thread_model(thread_id, model); };
  auto saved = co_await threads_.run(save);
  if (!saved) log_->warn("threads.db: {}", saved.error().message);
}

asio::awaitable<void> SessionLedger::thread_archived(std::string thread_id) {
  auto mark = [thread_id](ThreadsDb& db) { return db.set_thread_archived(thread_id); };
  auto marked = co_await threads_.run(mark);
  if (!marked) log_->error("threads.db: {}", marked.error().message);
}

asio::awaitable<void> SessionLedger::thread_closed(std::string thread_id) {
  auto close = [thread_id](ThreadsDb& db) {
    return db.set_thread_state(thread_id, ThreadState::closed);
  };
  auto closed = co_await threads_.run(close);
  if (!closed) log_->error("threads.db: {}", closed.error().message);
}

}  // namespace errand::sessions
