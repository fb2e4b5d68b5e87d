#include "core/threads/threads_schema.hpp"

#include <array>
#include <boost/json.hpp>

namespace errand::sessions {

namespace threads_schema {

namespace {

// Version 1. Times are milliseconds since the Unix epoch, UTC. Turns may exist before their
// thread and session do (the opening message is recorded first), so those references start
// empty.
constexpr std::string_view kSchemaV1 = R"sql(
CREATE TABLE threads (
  thread_id TEXT PRIMARY KEY NOT NULL,
  project_name TEXT NOT NULL,
  project_path TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  guests TEXT NOT NULL DEFAULT '[]',
  model TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('live', 'resumable', 'closed')),
  last_session_id TEXT
) STRICT;
CREATE TABLE sessions (
  session_id TEXT PRIMARY KEY NOT NULL,
  thread_id TEXT NOT NULL REFERENCES threads(thread_id) ON DELETE CASCADE,
  backend TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  end_reason TEXT
) STRICT;
CREATE INDEX sessions_by_thread ON sessions(thread_id);
CREATE TABLE turns (
  turn_id INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id TEXT NOT NULL UNIQUE,
  thread_id TEXT REFERENCES threads(thread_id) ON DELETE CASCADE,
  session_id TEXT REFERENCES sessions(session_id) ON DELETE CASCADE,
  asked_by TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  admitted_at INTEGER,
  started_at INTEGER,
  ended_at INTEGER,
  outcome TEXT CHECK (outcome IS NULL OR outcome IN
    ('completed', 'cancelled', 'failed', 'expired', 'interrupted', 'rejected'))
) STRICT;
CREATE INDEX turns_by_session ON turns(session_id);
CREATE INDEX turns_by_thread ON turns(thread_id);
)sql";

// Version 2: when the chat service last archived the thread (every !stop archives), so that
// `errand threads collect` can find archived threads that are still resumable.
constexpr std::string_view kSchemaV2 = R"sql(
ALTER TABLE threads ADD COLUMN archived_at INTEGER;
)sql";

constexpr std::array<std::string_view, 2> kMigrations{kSchemaV1, kSchemaV2};
static_assert(kMigrations.size() == ThreadsDb::kSchemaVersion);

}  // namespace

storage::Schema schema() {
  return {"threads.db", kMigrations};
}

TimePoint from_ms(std::int64_t ms) {
  return TimePoint(std::chrono::milliseconds(ms));
}
std::optional<TimePoint> from_ms(const std::optional<std::int64_t>& ms) {
  if (!ms) return std::nullopt;
  return from_ms(*ms);
}
std::int64_t to_ms(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string guests_to_json(const std::vector<std::string>& guests) {
  boost::json::array a;
  for (const auto& g : guests) a.emplace_back(g);
  return boost::json::serialize(a);
}

namespace {

std::vector<std::string> guests_from_json(const std::string& text) {
  std::vector<std::string> guests;
  boost::system::error_code ec;
  const auto v = boost::json::parse(text, ec);
  if (ec || !v.is_array()) return guests;
  for (const auto& g : v.as_array()) {
    if (g.is_string()) guests.emplace_back(g.as_string());
  }
  return guests;
}

}  // namespace

ThreadRecord read_thread(const storage::Statement& s) {
  ThreadRecord t;
  t.thread_id = s.text(0);
  t.project_name = s.text(1);
  t.project_path = s.text(2);
  t.owner_id = s.text(3);
  t.guests = guests_from_json(s.text(4));
  t.model = s.text(5);
  t.created_at = from_ms(s.integer(6));
  t.updated_at = from_ms(s.integer(7));
  t.state = thread_state_from(s.text(8)).value_or(ThreadState::resumable);
  t.last_session_id = s.text(9);
  t.archived_at = from_ms(s.optional_integer(10));
  return t;
}

SessionRecord read_session(const storage::Statement& s) {
  SessionRecord r;
  r.session_id = s.text(0);
  r.thread_id = s.text(1);
  r.backend = s.text(2);
  r.started_at = from_ms(s.integer(3));
  r.ended_at = from_ms(s.optional_integer(4));
  r.end_reason = s.text(5);
  return r;
}

TurnRecord read_turn(const storage::Statement& s) {
  TurnRecord t;
  t.turn_id = s.integer(0);
  t.message_id = s.text(1);
  t.thread_id = s.text(2);
  t.session_id = s.text(3);
  t.asked_by = s.text(4);
  t.received_at = from_ms(s.integer(5));
  t.admitted_at = from_ms(s.optional_integer(6));
  t.started_at = from_ms(s.optional_integer(7));
  t.ended_at = from_ms(s.optional_integer(8));
  if (!s.is_null(9)) t.outcome = turn_outcome_from(s.text(9));
  return t;
}

sdk::Error not_found(std::string message) {
  return sdk::make_error(std::move(message), sdk::Error::Kind::not_found);
}

}  // namespace threads_schema

std::string_view to_string(ThreadState state) noexcept {
  switch (state) {
    case ThreadState::live: return "live";
    case ThreadState::resumable: return "resumable";
    case ThreadState::closed: return "closed";
  }
  return "resumable";
}

std::string_view to_string(TurnOutcome outcome) noexcept {
  switch (outcome) {
    case TurnOutcome::completed: return "completed";
    case TurnOutcome::cancelled: return "cancelled";
    case TurnOutcome::failed: return "failed";
    case TurnOutcome::expired: return "expired";
    case TurnOutcome::interrupted: return "interrupted";
    case TurnOutcome::rejected: return "rejected";
  }
  return "failed";
}

std::optional<ThreadState> thread_state_from(std::string_view text) noexcept {
  for (auto s : {ThreadState::live, ThreadState::resumable, ThreadState::closed}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

std::optional<TurnOutcome> turn_outcome_from(std::string_view text) noexcept {
  for (auto o : {TurnOutcome::completed, TurnOutcome::cancelled, TurnOutcome::failed,
                 TurnOutcome::expired, TurnOutcome::interrupted, TurnOutcome::rejected}) {
    if (to_string(o) == text) return o;
  }
  return std::nullopt;
}

}  // namespace errand::sessions
