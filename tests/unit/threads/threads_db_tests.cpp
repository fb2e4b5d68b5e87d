#include "core/threads/threads_db.hpp"
#include "core/threads/threads_store.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <fstream>
#include <thread>

using namespace std::chrono_literals;
using namespace errand::sessions;
using Catch::Matchers::ContainsSubstring;
using errand::test::ManualClock;
using errand::test::ok;
using errand::test::TempDir;

namespace {

unsigned mode_of(const std::filesystem::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string pragma(const std::filesystem::path& file, const char* name) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, (std::string("PRAGMA ") + name).c_str(), -1, &s, nullptr) ==
          SQLITE_OK);
  std::string value;
  if (sqlite3_step(s) == SQLITE_ROW)
    value = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return value;
}

ThreadRecord thread(std::string id, std::string project = "demo") {
  ThreadRecord t;
  t.thread_id = std::move(id);
  t.project_name = project;
  t.project_path = "/srv/projects/" + project;
  t.owner_id = "owner-1";
  t.guests = {"guest-1", "guest-2"};
  t.model = "claude-sonnet";
  return t;
}

std::unique_ptr<ThreadsDb> open_db(const std::filesystem::path& file, const ManualClock& clock) {
  auto db = ThreadsDb::open(file, clock);
  REQUIRE(ok(db));
  return std::move(*db);
}

}  // namespace

TEST_CASE("threads.db is created from an empty file at the current schema, private, in WAL") {
  TempDir dir;
  ManualClock clock;
  const auto file = dir / "threads.db";
  { std::ofstream touch(file); }
  REQUIRE(std::filesystem::file_size(file) == 0);
  {
    auto db = open_db(file, clock);
    CHECK(db->schema_version().value() == ThreadsDb::kSchemaVersion);
    REQUIRE(ok(db->save_thread(thread("t1"))));
    CHECK(mode_of(file) == 0600);
    CHECK(mode_of(dir / "threads.db-wal") == 0600);
  }
  CHECK(pragma(file, "journal_mode") == "wal");
  CHECK(pragma(file, "user_version") == std::to_string(ThreadsDb::kSchemaVersion));

  // Absent, and world-readable before: both end up private.
  const auto other = dir / "other.db";
  { auto db = open_db(other, clock); }
  CHECK(mode_of(other) == 0600);
  ::chmod(other.c_str(), 0644);
  { auto db = open_db(other, clock); }
  CHECK(mode_of(other) == 0600);
}

TEST_CASE("a threads.db written by a newer errand is refused, not opened") {
  TempDir dir;
  ManualClock clock;
  const auto file = dir / "threads.db";
  { auto db = open_db(file, clock); }
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "PRAGMA user_version=7", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);
  auto refused = ThreadsDb::open(file, clock);
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message, ContainsSubstring("schema version 7"));
  CHECK_THAT(refused.error().message, ContainsSubstring("newer"));
}

TEST_CASE("a chat message is admitted at most once, across a reopen too") {
  TempDir dir;
  ManualClock clock;
  const auto file = dir / "threads.db";
  {
    auto db = open_db(file, clock);
    CHECK(db->admit_message({"msg-1", "", "", "user-1"}).value());
    CHECK_FALSE(db->admit_message({"msg-1", "", "", "user-1"}).value());
    CHECK(db->admit_message({"msg-2", "", "", "user-2"}).value());
  }
  auto db = open_db(file, clock);
  CHECK_FALSE(db->admit_message({"msg-1", "", "", "user-1"}).value());
  CHECK_FALSE(db->admit_message({"msg-2", "", "", "user-9"}).value());
  CHECK(db->admit_message({"msg-3", "", "", "user-1"}).value());
  CHECK(db->find_turn("msg-2").value()->asked_by == "user-2");
  CHECK_FALSE(db->admit_message({"", "", "", "user-1"}).has_value());
}

TEST_CASE("an opening turn whose thread was never recorded is found by that thread, once") {
  TempDir dir;
  ManualClock clock;
  auto db = open_db(dir / "threads.db", clock);
  REQUIRE(db->admit_message({"m-open", "", "", "owner-1"}).value());
  ThreadRecord known;
  known.thread_id = "t-known";
  REQUIRE(ok(db->save_thread(known)));
  REQUIRE(db->admit_message({"m-reply", "t-known", "", "guest-1"}).value());
  // An opening errand refused (a stranger's, a full queue) was ended before the restart.
  REQUIRE(db->admit_message({"m-refused", "", "", "stranger-1"}).value());
  REQUIRE(db->turn_ended("m-refused", TurnOutcome::rejected).value());
  REQUIRE(db->mark_interrupted_on_restart().has_value());

  // Only a turn with no thread matches, and only by its own message id.
  CHECK_FALSE(db->find_unrecorded_opening("m-reply").value());
  CHECK_FALSE(db->find_unrecorded_opening("m-other").value());
  // A refused opening is never adopted: nothing was under way in it.
  CHECK_FALSE(db->find_unrecorded_opening("m-refused").value());
  const auto opening = db->find_unrecorded_opening("m-open").value();
  REQUIRE(opening);
  CHECK(opening->asked_by == "owner-1");

  ThreadRecord thread;
  thread.thread_id = "m-open";
  thread.project_name = "p";
  thread.project_path = "/projects/p";
  thread.owner_id = opening->asked_by;
  thread.state = ThreadState::resumable;
  REQUIRE(ok(db->adopt_thread(thread)));
  CHECK(db->find_thread("m-open").value()->owner_id == "owner-1");
  const auto attached = db->find_turn("m-open").value();
  CHECK(attached->thread_id == "m-open");
  CHECK(attached->outcome == TurnOutcome::interrupted);
  CHECK_FALSE(db->find_unrecorded_opening("m-open").value());
}

TEST_CASE("a turn records who asked, when it was admitted, started and ended, and one outcome") {
  TempDir dir;
  ManualClock clock;
  auto db = open_db(dir / "threads.db", clock);
  REQUIRE(ok(db->admit_message({"opening", "", "", "user-1"})));
  clock.advance(2s);
  REQUIRE(ok(db->save_thread(thread("t1"))));
  REQUIRE(ok(db->session_started({"s1", "t1", "bailey", {}, std::nullopt, ""})));
  REQUIRE(ok(db->turn_admitted("opening", "s1")));
  clock.advance(1s);
  REQUIRE(ok(db->turn_started("opening")));
  clock.advance(30s);
  CHECK(db->turn_ended("opening", TurnOutcome::completed).value());
  CHECK_FALSE(db->turn_ended("opening", TurnOutcome::failed).value());

  const auto turn = db->find_turn("opening").value().value();
  CHECK(turn.thread_id == "t1");
  CHECK(turn.session_id == "s1");
  CHECK(turn.asked_by == "user-1");
  CHECK(*turn.admitted_at - turn.received_at == 2s);
  CHECK(*turn.started_at - *turn.admitted_at == 1s);
  CHECK(*turn.ended_at - *turn.started_at == 30s);
  CHECK(turn.outcome == TurnOutcome::completed);
  CHECK(db->turns_of_session("s1").value().size() == 1);

  CHECK(db->turn_started("missing").error().kind == errand::sdk::Error::Kind::not_found);
  CHECK(db->turn_admitted("opening", "no-such-session").error().kind ==
        errand::sdk::Error::Kind::not_found);
}

TEST_CASE("threads keep their owner, guests and model, and sessions make them live or resumable") {
  TempDir dir;
  ManualClock clock;
  auto db = open_db(dir / "threads.db", clock);
  REQUIRE(ok(db->save_thread(thread("t1"))));
  REQUIRE(ok(db->session_started({"s1", "t1", "podman", {}, std::nullopt, ""})));
  auto t = db->find_thread("t1").value().value();
  CHECK(t.state == ThreadState::live);
  CHECK(t.last_session_id == "s1");
  CHECK(t.guests == std::vector<std::string>{"guest-1", "guest-2"});
  CHECK(t.model == "claude-sonnet");

  REQUIRE(ok(db->set_thread_model("t1", "glm-flash")));
  REQUIRE(ok(db->set_thread_guests("t1", {"guest-3"})));
  REQUIRE(ok(db->session_ended("s1", "idle")));
  REQUIRE(ok(db->session_ended("s1", "stopped")));  // the first end stands
  t = db->find_thread("t1").value().value();
  CHECK(t.state == ThreadState::resumable);
  CHECK(t.model == "glm-flash");
  CHECK(t.guests == std::vector<std::string>{"guest-3"});
  CHECK(db->find_session("s1").value()->end_reason == "idle");

  CHECK(db->session_started({"s2", "unknown", "bailey", {}, std::nullopt, ""}).error().kind ==
        errand::sdk::Error::Kind::not_found);
  CHECK(db->set_thread_state("unknown", ThreadState::closed).error().kind ==
        errand::sdk::Error::Kind::not_found);
}

TEST_CASE("calls through ThreadsStore run off the io thread and resume on it") {
  TempDir dir;
  ManualClock clock;
  ThreadsStore store(open_db(dir / "threads.db", clock));
  boost::asio::io_context io;
  const auto io_thread = std::this_thread::get_id();
  std::thread::id ran_on, resumed_on;
  std::optional<bool> first, second;
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> {
        auto admit = [&](ThreadsDb& db) {
          ran_on = std::this_thread::get_id();
          return db.admit_message({"m1", "", "", "u1"});
        };
        auto once = co_await store.run(admit);
        auto again = co_await store.run(admit);
        first = once.value();
        second = again.value();
        resumed_on = std::this_thread::get_id();
      },
      boost::asio::detached);
  io.run();
  CHECK(first == true);
  CHECK(second == false);
  CHECK(ran_on != io_thread);
  CHECK(resumed_on == io_thread);
}
