// ThreadsDb's turns and the reconciliation after a restart, apart from threads and sessions
// (threads_db.cpp) to keep each file to one concern.

#include "core/threads/threads_db.hpp"
#include "core/threads/threads_schema.hpp"

#include <fmt/format.h>

namespace errand::sessions {

using namespace threads_schema;
using sdk::Error;
using storage::Connection;

sdk::Result<bool> ThreadsDb::admit_message(const NewTurn& t) {
  if (t.message_id.empty())
    return sdk::make_error("a prompt without a message id cannot be admitted",
                           Error::Kind::refused);
  return db_->access([&](Connection& db) -> sdk::Result<bool> {
    db.prepare(
          "INSERT INTO turns (message_id, thread_id, session_id, asked_by, received_at) "
          "VALUES (?,?,?,?,?) ON CONFLICT(message_id) DO NOTHING")
        .bind(1, t.message_id)
        .bind_text_or_null(2, t.thread_id)
        .bind_text_or_null(3, t.session_id)
        .bind(4, t.asked_by)
        .bind(5, now_ms())
        .run();
    return db.changes() == 1;
  });
}

sdk::Result<void> ThreadsDb::turn_admitted(std::string_view message_id,
                                           std::string_view session_id) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    auto thread = db.prepare("SELECT thread_id FROM sessions WHERE session_id=?");
    thread.bind(1, session_id);
    if (!thread.step()) return not_found(fmt::format("no session {} in threads.db", session_id));
    db.prepare("UPDATE turns SET session_id=?, thread_id=?, admitted_at=? WHERE message_id=?")
        .bind(1, session_id)
        .bind(2, thread.text(0))
        .bind(3, now_ms())
        .bind(4, message_id)
        .run();
    if (db.changes() == 0) return not_found(fmt::format("no turn for message {}", message_id));
    return {};
  });
}

sdk::Result<void> ThreadsDb::turn_started(std::string_view message_id) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    db.prepare("UPDATE turns SET started_at=coalesce(started_at, ?) WHERE message_id=?")
        .bind(1, now_ms())
        .bind(2, message_id)
        .run();
    if (db.changes() == 0) return not_found(fmt::format("no turn for message {}", message_id));
    return {};
  });
}

sdk::Result<bool> ThreadsDb::turn_ended(std::string_view message_id, TurnOutcome outcome) {
  return db_->access([&](Connection& db) -> sdk::Result<bool> {
    db.prepare("UPDATE turns SET ended_at=?, outcome=? WHERE message_id=? AND ended_at IS NULL")
        .bind(1, now_ms())
        .bind(2, to_string(outcome))
        .bind(3, message_id)
        .run();
    if (db.changes() == 1) return true;
    auto exists = db.prepare("SELECT 1 FROM turns WHERE message_id=?");
    exists.bind(1, message_id);
    if (!exists.step()) return not_found(fmt::format("no turn for message {}", message_id));
    return false;
  });
}

sdk::Result<std::optional<TurnRecord>> ThreadsDb::find_turn(std::string_view message_id) {
  return db_->access([&](Connection& db) -> sdk::Result<std::optional<TurnRecord>> {
    auto s = db.prepare(fmt::format("SELECT {} FROM turns WHERE message_id=?", kTurnColumns));
    s.bind(1, message_id);
    if (!s.step()) return std::optional<TurnRecord>();
    return std::optional<TurnRecord>(read_turn(s));
  });
}

sdk::Result<std::vector<TurnRecord>> ThreadsDb::turns_of_session(std::string_view session_id) {
  return db_->access([&](Connection& db) -> sdk::Result<std::vector<TurnRecord>> {
    auto s = db.prepare(
        fmt::format("SELECT {} FROM turns WHERE session_id=? ORDER BY turn_id", kTurnColumns));
    s.bind(1, session_id);
    std::vector<TurnRecord> all;
    while (s.step()) all.push_back(read_turn(s));
    return all;
  });
}

sdk::Result<std::optional<TurnRecord>> ThreadsDb::find_unrecorded_opening(
    std::string_view thread_id) {
  return db_->access([&](Connection& db) -> sdk::Result<std::optional<TurnRecord>> {
    // Only an opening that was under way when the daemon stopped (no outcome yet, or the
    // restart's own "interrupted"): one errand refused or ended before opens no thread to adopt.
    auto s = db.prepare(fmt::format(
        "SELECT {} FROM turns WHERE message_id=? AND (thread_id IS NULL OR thread_id='') AND "
        "(outcome IS NULL OR outcome='interrupted')",
        kTurnColumns));
    s.bind(1, thread_id);
    if (!s.step()) return std::optional<TurnRecord>();
    return std::optional<TurnRecord>(read_turn(s));
  });
}

sdk::Result<void> ThreadsDb::adopt_thread(const ThreadRecord& thread) {
  if (auto saved = save_thread(thread); !saved) return saved;
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    db.prepare(
          "UPDATE turns SET thread_id=? WHERE message_id=? AND (thread_id IS NULL OR "
          "thread_id='')")
        .bind(1, thread.thread_id)
        .bind(2, thread.thread_id)
        .run();
    return {};
  });
}

sdk::Result<RestartReconciliation> ThreadsDb::mark_interrupted_on_restart() {
  return db_->access([&](Connection& db) -> sdk::Result<RestartReconciliation> {
    RestartReconciliation changed;
    const auto now = now_ms();
    in_transaction(db, [&] {
      auto turns = db.prepare(fmt::format(
          "SELECT {} FROM turns WHERE ended_at IS NULL ORDER BY turn_id", kTurnColumns));
      while (turns.step()) changed.interrupted_turns.push_back(read_turn(turns));
      db.prepare("UPDATE turns SET ended_at=?, outcome='interrupted' WHERE ended_at IS NULL")
          .bind(1, now)
          .run();
      auto sessions =
          db.prepare("SELECT session_id FROM sessions WHERE ended_at IS NULL ORDER BY started_at");
      while (sessions.step()) changed.ended_sessions.push_back(sessions.text(0));
      db.prepare("UPDATE sessions SET ended_at=?, end_reason=? WHERE ended_at IS NULL")
          .bind(1, now)
          .bind(2, kRestartReason)
          .run();
      auto threads =
          db.prepare("SELECT thread_id FROM threads WHERE state='live' ORDER BY updated_at");
      while (threads.step()) changed.resumable_threads.push_back(threads.text(0));
      db.prepare("UPDATE threads SET state='resumable', updated_at=? WHERE state='live'")
          .bind(1, now)
          .run();
    });
    for (auto& t : changed.interrupted_turns) {
      t.ended_at = from_ms(now);
      t.outcome = TurnOutcome::interrupted;
    }
    return changed;
  });
}

}  // namespace errand::sessions
