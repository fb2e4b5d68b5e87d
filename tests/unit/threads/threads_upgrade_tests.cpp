#include "core/threads/threads_db.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/storage/raw_sqlite.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace std::chrono_literals;
using namespace errand::sessions;
using errand::test::ManualClock;
using errand::test::ok;
using errand::test::raw_exec;
using errand::test::raw_scalar;
using errand::test::TempDir;

namespace {

// threads.db as an errand before archived_at wrote it: schema version 1, written out here
// rather than taken from the code, so a later edit of the code's first step cannot make this
// test agree with itself.
constexpr const char* kVersion1File = R"sql(
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
INSERT INTO threads VALUES ('thread-1', 'demo', '/srv/projects/demo', 'owner-1',
  '["guest-1"]', 'claude-sonnet', 1700000000000, 1700000100000, 'resumable', 'session-1');
INSERT INTO sessions VALUES ('session-1', 'thread-1', 'bailey', 1700000001000, 1700000090000,
  'idle');
INSERT INTO turns (message_id, thread_id, session_id, asked_by, received_at, admitted_at,
  started_at, ended_at, outcome) VALUES ('msg-1', 'thread-1', 'session-1', 'owner-1',
  1700000002000, 1700000002500, 1700000003000, 1700000080000, 'completed');
PRAGMA user_version = 1;
)sql";

TimePoint at_ms(std::int64_t ms) {
  return TimePoint(std::chrono::milliseconds(ms));
}

}  // namespace

TEST_CASE("a threads.db at schema 1 is migrated to schema 2 and keeps its rows") {
  TempDir dir;
  ManualClock clock;
  const auto file = dir / "threads.db";
  raw_exec(file, kVersion1File);
  REQUIRE(raw_scalar(file, "PRAGMA user_version") == 1);
  REQUIRE(raw_scalar(file,
                     "SELECT count(*) FROM pragma_table_info('threads') WHERE name = "
                     "'archived_at'") == 0);

  auto opened = ThreadsDb::open(file, clock);
  REQUIRE(ok(opened));
  auto& db = **opened;
  CHECK(db.schema_version().value() == 2);
  CHECK(raw_scalar(file, "PRAGMA user_version") == 2);

  const auto thread = db.find_thread("thread-1").value();
  REQUIRE(thread.has_value());
  CHECK(thread->project_name == "demo");
  CHECK(thread->project_path == "/srv/projects/demo");
  CHECK(thread->owner_id == "owner-1");
  CHECK(thread->guests == std::vector<std::string>{"guest-1"});
  CHECK(thread->model == "claude-sonnet");
  CHECK(thread->created_at == at_ms(1700000000000));
  CHECK(thread->updated_at == at_ms(1700000100000));
  CHECK(thread->state == ThreadState::resumable);
  CHECK(thread->last_session_id == "session-1");
  CHECK_FALSE(thread->archived_at.has_value());

  const auto sessions = db.sessions_of("thread-1").value();
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].backend == "bailey");
  CHECK(sessions[0].ended_at == at_ms(1700000090000));
  CHECK(sessions[0].end_reason == "idle");

  const auto turns = db.turns_of_session("session-1").value();
  REQUIRE(turns.size() == 1);
  CHECK(turns[0].message_id == "msg-1");
  CHECK(turns[0].asked_by == "owner-1");
  CHECK(turns[0].started_at == at_ms(1700000003000));
  CHECK(turns[0].outcome == TurnOutcome::completed);

  // The new column works on the old row.
  REQUIRE(ok(db.set_thread_archived("thread-1")));
  CHECK(db.find_thread("thread-1").value()->archived_at == clock.now());
}
