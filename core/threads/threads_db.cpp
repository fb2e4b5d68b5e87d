#include "core/threads/threads_db.hpp"

#include "core/threads/threads_schema.hpp"

#include <fmt/format.h>

namespace errand::sessions {

using namespace threads_schema;
using sdk::Error;
using storage::Connection;
using storage::Statement;

ThreadsDb::ThreadsDb(std::unique_ptr<storage::Database> db, const sdk::Clock& clock)
    : db_(std::move(db)), clock_(clock) {}

ThreadsDb::~ThreadsDb() = default;

std::int64_t ThreadsDb::now_ms() const {
  return to_ms(clock_.now());
}

sdk::Result<std::unique_ptr<ThreadsDb>> ThreadsDb::open(const std::filesystem::path& file,
                                                        const sdk::Clock& clock) {
  auto db = storage::Database::open(file, schema());
  if (!db) return db.error();
  return std::unique_ptr<ThreadsDb>(new ThreadsDb(std::move(*db), clock));
}

sdk::Result<int> ThreadsDb::schema_version() {
  return db_->access([&](Connection& db) -> sdk::Result<int> { return db.user_version(); });
}

sdk::Result<void> ThreadsDb::save_thread(const ThreadRecord& t) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    db.prepare(
          "INSERT INTO threads (thread_id, project_name, project_path, owner_id, guests, model, "
          "created_at, updated_at, state, last_session_id) VALUES (?,?,?,?,?,?,?,?,?,?) "
          "ON CONFLICT(thread_id) DO UPDATE SET project_name=excluded.project_name, "
          "project_path=excluded.project_path, owner_id=excluded.owner_id, "
          "guests=excluded.guests, model=excluded.model, updated_at=excluded.updated_at, "
          "state=excluded.state, last_session_id=excluded.last_session_id")
        .bind(1, t.thread_id)
        .bind(2, t.project_name)
        .bind(3, t.project_path)
        .bind(4, t.owner_id)
        .bind(5, guests_to_json(t.guests))
        .bind_text_or_null(6, t.model)
        .bind(7, t.created_at == TimePoint{} ? now_ms() : to_ms(t.created_at))
        .bind(8, now_ms())
        .bind(9, to_string(t.state))
        .bind_text_or_null(10, t.last_session_id)
        .run();
    return {};
  });
}

namespace {

template <class Bind>
sdk::Result<void> update_thread(Connection& db, std::string_view sql, std::string_view thread_id,
                                Bind bind) {
  auto s = db.prepare(sql);
  bind(s);
  s.run();
  if (db.changes() == 0) return not_found(fmt::format("no thread {} in threads.db", thread_id));
  return {};
}

}  // namespace

sdk::Result<void> ThreadsDb::set_thread_state(std::string_view thread_id, ThreadState state) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    return update_thread(
        db, "UPDATE threads SET state=?, updated_at=? WHERE thread_id=?", thread_id,
        [&](Statement& s) { s.bind(1, to_string(state)).bind(2, now_ms()).bind(3, thread_id); });
  });
}

sdk::Result<void> ThreadsDb::set_thread_archived(std::string_view thread_id) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    const auto now = now_ms();
    return update_thread(db, "UPDATE threads SET archived_at=?, updated_at=? WHERE thread_id=?",
                         thread_id,
                         [&](Statement& s) { s.bind(1, now).bind(2, now).bind(3, thread_id); });
  });
}

sdk::Result<void> ThreadsDb::set_thread_model(std::string_view thread_id, std::string_view model) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    return update_thread(
        db, "UPDATE threads SET model=?, updated_at=? WHERE thread_id=?", thread_id,
        [&](Statement& s) { s.bind_text_or_null(1, model).bind(2, now_ms()).bind(3, thread_id); });
  });
}

sdk::Result<void> ThreadsDb::set_thread_guests(std::string_view thread_id,
                                               const std::vector<std::string>& guests) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    return update_thread(db, "UPDATE threads SET guests=?, updated_at=? WHERE thread_id=?",
                         thread_id, [&](Statement& s) {
                           s.bind(1, guests_to_json(guests)).bind(2, now_ms()).bind(3, thread_id);
                         });
  });
}

sdk::Result<std::optional<ThreadRecord>> ThreadsDb::find_thread(std::string_view thread_id) {
  return db_->access([&](Connection& db) -> sdk::Result<std::optional<ThreadRecord>> {
    auto s =
        db.prepare(fmt::format("SELECT {} FROM threads t WHERE t.thread_id=?", kThreadColumns));
    s.bind(1, thread_id);
    if (!s.step()) return std::optional<ThreadRecord>();
    return std::optional<ThreadRecord>(read_thread(s));
  });
}

sdk::Result<ThreadRecord> ThreadsDb::find_thread_by_prefix(std::string_view prefix) {
  if (prefix.empty()) {
    return sdk::make_error("an empty id matches every thread; give a thread or session id",
                           Error::Kind::refused);
  }
  return db_->access([&](Connection& db) -> sdk::Result<ThreadRecord> {
    auto exact =
        db.prepare(fmt::format("SELECT {} FROM threads t WHERE t.thread_id=?1 OR t.thread_id IN "
                               "(SELECT thread_id FROM sessions WHERE session_id=?1) LIMIT 1",
                               kThreadColumns));
    exact.bind(1, prefix);
    if (exact.step()) return read_thread(exact);
    auto candidates = db.prepare(fmt::format(
        "SELECT DISTINCT {} FROM threads t LEFT JOIN sessions s ON s.thread_id=t.thread_id "
        "WHERE substr(t.thread_id, 1, length(?1))=?1 OR substr(s.session_id, 1, length(?1))=?1 "
        "ORDER BY t.updated_at DESC",
        kThreadColumns));
    candidates.bind(1, prefix);
    std::vector<ThreadRecord> found;
    while (candidates.step()) found.push_back(read_thread(candidates));
    if (found.empty()) {
      return not_found(fmt::format(
          "no thread or session id starts with \"{}\"; `errand threads list` shows them", prefix));
    }
    if (found.size() == 1) return found.front();
    std::string listed;
    for (std::size_t i = 0; i < found.size() && i < 10; ++i) {
      listed +=
          fmt::format("\n  {} ({}, last session {})", found[i].thread_id, found[i].project_name,
                      found[i].last_session_id.empty() ? "none" : found[i].last_session_id);
    }
    if (found.size() > 10) listed += fmt::format("\n  ... and {} more", found.size() - 10);
    return sdk::make_error(fmt::format("\"{}\" matches {} threads; give more of the id:{}", prefix,
                                       found.size(), listed),
                           Error::Kind::refused);
  });
}

sdk::Result<std::vector<ThreadSummary>> ThreadsDb::list_threads() {
  return db_->access([&](Connection& db) -> sdk::Result<std::vector<ThreadSummary>> {
    auto s = db.prepare(
        fmt::format("SELECT {}, (SELECT count(*) FROM sessions s WHERE s.thread_id=t.thread_id), "
                    "(SELECT count(*) FROM turns u WHERE u.thread_id=t.thread_id) "
                    "FROM threads t ORDER BY t.updated_at DESC, t.thread_id",
                    kThreadColumns));
    std::vector<ThreadSummary> all;
    while (s.step()) {
      all.push_back(ThreadSummary{read_thread(s), static_cast<std::size_t>(s.integer(11)),
                                  static_cast<std::size_t>(s.integer(12))});
    }
    return all;
  });
}

sdk::Result<RemovedThread> ThreadsDb::remove_thread(std::string_view thread_id) {
  return db_->access([&](Connection& db) -> sdk::Result<RemovedThread> {
    RemovedThread removed;
    removed.thread_id = std::string(thread_id);
    bool existed = false;
    in_transaction(db, [&] {
      auto sessions =
          db.prepare("SELECT session_id FROM sessions WHERE thread_id=? ORDER BY started_at");
      sessions.bind(1, thread_id);
      while (sessions.step()) removed.session_ids.push_back(sessions.text(0));
      auto turns = db.prepare(
          "SELECT count(*) FROM turns WHERE thread_id=?1 OR session_id IN "
          "(SELECT session_id FROM sessions WHERE thread_id=?1)");
      turns.bind(1, thread_id);
      turns.step();
      removed.turns = static_cast<std::size_t>(turns.integer(0));
      auto del = db.prepare("DELETE FROM threads WHERE thread_id=?");
      del.bind(1, thread_id).run();
      existed = db.changes() > 0;
    });
    if (!existed) return not_found(fmt::format("no thread {} in threads.db", thread_id));
    return removed;
  });
}

sdk::Result<void> ThreadsDb::session_started(const SessionRecord& r) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    bool thread_known = false;
    in_transaction(db, [&] {
      auto update = db.prepare(
          "UPDATE threads SET last_session_id=?, state='live', archived_at=NULL, updated_at=? "
          "WHERE thread_id=?");
      update.bind(1, r.session_id).bind(2, now_ms()).bind(3, r.thread_id).run();
      thread_known = db.changes() > 0;
      if (!thread_known) return;
      db.prepare(
            "INSERT INTO sessions (session_id, thread_id, backend, started_at) VALUES (?,?,?,?)")
          .bind(1, r.session_id)
          .bind(2, r.thread_id)
          .bind(3, r.backend)
          .bind(4, r.started_at == TimePoint{} ? now_ms() : to_ms(r.started_at))
          .run();
    });
    if (!thread_known) {
      return not_found(
          fmt::format("session {} names thread {}, which threads.db does not hold; "
                      "save the thread first",
                      r.session_id, r.thread_id));
    }
    return {};
  });
}

sdk::Result<void> ThreadsDb::session_ended(std::string_view session_id, std::string_view reason) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    bool known = false;
    in_transaction(db, [&] {
      auto find = db.prepare("SELECT thread_id FROM sessions WHERE session_id=?");
      find.bind(1, session_id);
      if (!find.step()) return;
      known = true;
      const auto thread_id = find.text(0);
      const auto now = now_ms();
      db.prepare(
            "UPDATE sessions SET ended_at=?, end_reason=? WHERE session_id=? AND ended_at IS NULL")
          .bind(1, now)
          .bind(2, reason)
          .bind(3, session_id)
          .run();
      db.prepare(
            "UPDATE threads SET state='resumable', updated_at=? WHERE thread_id=? AND "
            "state='live' AND last_session_id=?")
          .bind(1, now)
          .bind(2, thread_id)
          .bind(3, session_id)
          .run();
    });
    if (!known) return not_found(fmt::format("no session {} in threads.db", session_id));
    return {};
  });
}

sdk::Result<std::optional<SessionRecord>> ThreadsDb::find_session(std::string_view session_id) {
  return db_->access([&](Connection& db) -> sdk::Result<std::optional<SessionRecord>> {
    auto s = db.prepare(fmt::format("SELECT {} FROM sessions WHERE session_id=?", kSessionColumns));
    s.bind(1, session_id);
    if (!s.step()) return std::optional<SessionRecord>();
    return std::optional<SessionRecord>(read_session(s));
  });
}

sdk::Result<std::vector<SessionRecord>> ThreadsDb::sessions_of(std::string_view thread_id) {
  return db_->access([&](Connection& db) -> sdk::Result<std::vector<SessionRecord>> {
    auto s = db.prepare(
        fmt::format("SELECT {} FROM sessions WHERE thread_id=? ORDER BY started_at, session_id",
                    kSessionColumns));
    s.bind(1, thread_id);
    std::vector<SessionRecord> all;
    while (s.step()) all.push_back(read_session(s));
    return all;
  });
}

}  // namespace errand::sessions
