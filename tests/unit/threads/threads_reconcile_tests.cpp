#include "core/threads/threads_db.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using namespace errand::sessions;
using Catch::Matchers::ContainsSubstring;
using errand::sdk::Error;
using errand::test::ManualClock;
using errand::test::ok;
using errand::test::TempDir;

namespace {

ThreadRecord thread_record(std::string id, std::string project) {
  ThreadRecord t;
  t.thread_id = std::move(id);
  t.project_name = std::move(project);
  t.project_path = "/srv/projects/" + t.project_name;
  t.owner_id = "owner";
  return t;
}

std::unique_ptr<ThreadsDb> open_reconcile_db(const std::filesystem::path& file,
                                             const ManualClock& clock) {
  auto db = ThreadsDb::open(file, clock);
  REQUIRE(ok(db));
  return std::move(*db);
}

}  // namespace

TEST_CASE(
    "after a restart, unfinished turns are interrupted, open sessions ended, threads resumable") {
  TempDir dir;
  ManualClock clock;
  const auto file = dir / "threads.db";
  {
    auto db = open_reconcile_db(file, clock);
    REQUIRE(ok(db->save_thread(thread_record("t-live", "alpha"))));
    REQUIRE(ok(db->save_thread(thread_record("t-idle", "beta"))));
    REQUIRE(ok(db->session_started({"s-live", "t-live", "bailey", {}, std::nullopt, ""})));
    REQUIRE(ok(db->session_started({"s-idle", "t-idle", "bailey", {}, std::nullopt, ""})));
    REQUIRE(ok(db->session_ended("s-idle", "idle")));

    REQUIRE(ok(db->admit_message({"done", "t-live", "s-live", "u1"})));
    REQUIRE(ok(db->turn_started("done")));
    REQUIRE(ok(db->turn_ended("done", TurnOutcome::completed)));
    REQUIRE(ok(db->admit_message({"running", "t-live", "s-live", "u1"})));
    REQUIRE(ok(db->turn_admitted("running", "s-live")));
    REQUIRE(ok(db->turn_started("running")));
    REQUIRE(ok(db->admit_message({"waiting", "t-live", "s-live", "u2"})));
  }
  clock.advance(5min);
  auto db = open_reconcile_db(file, clock);
  const auto changed = db->mark_interrupted_on_restart().value();
  REQUIRE(changed.interrupted_turns.size() == 2);
  CHECK(changed.interrupted_turns[0].message_id == "running");
  CHECK(changed.interrupted_turns[1].message_id == "waiting");
  CHECK(changed.interrupted_turns[1].asked_by == "u2");
  CHECK(changed.ended_sessions == std::vector<std::string>{"s-live"});
  CHECK(changed.resumable_threads == std::vector<std::string>{"t-live"});

  CHECK(db->find_turn("running").value()->outcome == TurnOutcome::interrupted);
  CHECK(db->find_turn("waiting").value()->ended_at == clock.now());
  CHECK(db->find_turn("done").value()->outcome == TurnOutcome::completed);
  const auto live = db->find_session("s-live").value().value();
  CHECK(live.end_reason == "daemon restart");
  CHECK(live.ended_at == clock.now());
  CHECK(db->find_session("s-idle").value()->end_reason == "idle");
  CHECK(db->find_thread("t-live").value()->state == ThreadState::resumable);

  // Nothing is left to reconcile the second time.
  CHECK(db->mark_interrupted_on_restart().value().empty());
}

TEST_CASE(
    "a thread_record is found by its id, a session id, or a prefix of either matching one "
    "thread_record") {
  TempDir dir;
  ManualClock clock;
  auto db = open_reconcile_db(dir / "threads.db", clock);
  REQUIRE(ok(db->save_thread(thread_record("1234567890", "alpha"))));
  clock.advance(1s);
  REQUIRE(ok(db->save_thread(thread_record("1234999999", "beta"))));
  clock.advance(1s);
  REQUIRE(ok(db->save_thread(thread_record("5550000", "gamma"))));
  REQUIRE(ok(db->session_started({"gamma-k3x9", "5550000", "bailey", {}, std::nullopt, ""})));

  CHECK(db->find_thread_by_prefix("1234567890").value().project_name == "alpha");
  CHECK(db->find_thread_by_prefix("12345").value().project_name == "alpha");
  CHECK(db->find_thread_by_prefix("gamma-k").value().thread_id == "5550000");
  CHECK(db->find_thread_by_prefix("gamma-k3x9").value().thread_id == "5550000");

  const auto ambiguous = db->find_thread_by_prefix("1234");
  REQUIRE_FALSE(ambiguous.has_value());
  CHECK(ambiguous.error().kind == Error::Kind::refused);
  CHECK_THAT(ambiguous.error().message, ContainsSubstring("matches 2 threads"));
  CHECK_THAT(ambiguous.error().message, ContainsSubstring("1234567890 (alpha"));
  CHECK_THAT(ambiguous.error().message, ContainsSubstring("1234999999 (beta"));

  const auto missing = db->find_thread_by_prefix("zz");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().kind == Error::Kind::not_found);
  CHECK_THAT(missing.error().message, ContainsSubstring("errand threads list"));
  // SQL wildcards in a prefix are plain characters.
  CHECK(db->find_thread_by_prefix("%").error().kind == Error::Kind::not_found);
  CHECK(db->find_thread_by_prefix("").error().kind == Error::Kind::refused);
}

TEST_CASE("threads are listed newest first, and removing one takes its sessions and turns") {
  TempDir dir;
  ManualClock clock;
  auto db = open_reconcile_db(dir / "threads.db", clock);
  REQUIRE(ok(db->save_thread(thread_record("t-old", "alpha"))));
  REQUIRE(ok(db->session_started({"s1", "t-old", "bailey", {}, std::nullopt, ""})));
  REQUIRE(ok(db->admit_message({"m1", "t-old", "s1", "u1"})));
  REQUIRE(ok(db->admit_message({"m2", "", "", "u1"})));
  REQUIRE(ok(db->turn_admitted("m2", "s1")));
  clock.advance(1min);
  REQUIRE(ok(db->save_thread(thread_record("t-new", "beta"))));
  REQUIRE(ok(db->admit_message({"m3", "t-new", "", "u2"})));

  const auto listed = db->list_threads().value();
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].thread.thread_id == "t-new");
  CHECK(listed[1].thread.thread_id == "t-old");
  CHECK(listed[1].sessions == 1);
  CHECK(listed[1].turns == 2);

  const auto removed = db->remove_thread("t-old").value();
  CHECK(removed.session_ids == std::vector<std::string>{"s1"});
  CHECK(removed.turns == 2);
  CHECK_FALSE(db->find_thread("t-old").value().has_value());
  CHECK_FALSE(db->find_session("s1").value().has_value());
  CHECK_FALSE(db->find_turn("m1").value().has_value());
  CHECK_FALSE(db->find_turn("m2").value().has_value());
  CHECK(db->find_turn("m3").value().has_value());
  CHECK(db->remove_thread("t-old").error().kind == Error::Kind::not_found);
  CHECK(db->list_threads().value().size() == 1);
}
