// Stopping a session, whatever asked for it: the broker session is closed first so the
// session's credentials stop working at once, then the sandbox is stopped, then the session is
// recorded as ended and its thread becomes resumable.

#include "core/sessions/session.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

void Session::drop_waiting_prompts() {
  const auto count = turns_.close();
  if (count > 0 && renderer_)
    renderer_->notice(std::to_string(count) +
                      (count == 1 ? " waiting prompt was" : " waiting prompts were") +
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
  auto mark = [thread_id](ThreadsDb& db) { return db.set_thread_archived(thread_id); };
  if (auto marked = co_await services_->threads.run(mark); !marked)
    log_->error("threads.db: {}", marked.error().message);
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
  if (client_) client_->close("the session ended");
  // The running turn ends now that the agent is gone; it gives its slot back itself.
  if (auto* turn = turns_.current()) {
    auto finished = turn->finished;
    co_await finished->wait();
  }
  client_.reset();
  services_->delegates->close(id());
  process_.reset();

  if (session_recorded_) {
    const std::string session_id = id();
    const std::string reason = request.reason;
    auto end = [session_id, reason](ThreadsDb& db) { return db.session_ended(session_id, reason); };
    auto ended = co_await services_->threads.run(end);
    if (!ended) log_->error("threads.db: {}", ended.error().message);
  }
  if (request.thread_deleted && !plan_.thread_id.empty()) {
    const std::string thread_id = plan_.thread_id;
    auto close = [thread_id](ThreadsDb& db) {
      return db.set_thread_state(thread_id, ThreadState::closed);
    };
    auto closed = co_await services_->threads.run(close);
    if (!closed) log_->error("threads.db: {}", closed.error().message);
  }
  if (transcript_) {
    record(
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
  ended_.fire();
}

}  // namespace errand::sessions
