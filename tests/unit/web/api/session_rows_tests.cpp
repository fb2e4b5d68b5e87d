// The sessions page's rows: threads.db's records (a real file) merged with the manager's
// snapshot of live sessions, in the contract's Row shape, and scrubbed.

#include "core/chat/render/transcript.hpp"
#include "core/secrets/secret_scrubber.hpp"
#include "core/threads/threads_db.hpp"
#include "core/web/api/session_rows.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using errand::secrets::SecretScrubber;
using errand::sessions::LiveSession;
using errand::sessions::SessionRecord;
using errand::sessions::ThreadRecord;
using errand::sessions::ThreadsDb;
using errand::sessions::ThreadState;
using errand::test::ManualClock;
using errand::test::ok;
using errand::test::TempDir;
using errand::web::session_list;
using errand::web::session_row;

namespace {

constexpr std::string_view kDefaultModel = "configured-default-model";

ThreadRecord record(std::string id, std::string project, std::string model = "") {
  ThreadRecord t;
  t.thread_id = std::move(id);
  t.project_name = std::move(project);
  t.project_path = "/srv/projects/" + t.project_name;
  t.owner_id = "owner-" + t.thread_id;
  t.model = std::move(model);
  t.state = ThreadState::resumable;
  return t;
}

LiveSession live(std::string session, std::string thread, std::string project,
                 LiveSession::State state, std::chrono::system_clock::time_point started) {
  LiveSession s;
  s.session_id = std::move(session);
  s.thread_id = std::move(thread);
  s.project = std::move(project);
  s.owner_id = "owner-live";
  s.state = state;
  s.started_at = started;
  return s;
}

// Three recorded threads, written a minute apart: old (closed), middle (resumable), newest
// (whose session is live now).
struct Recorded {
  Recorded() {
    auto opened = ThreadsDb::open(dir / "threads.db", clock);
    REQUIRE(ok(opened));
    db = std::move(*opened);
    REQUIRE(ok(db->save_thread(record("t-old", "alpha"))));
    REQUIRE(ok(db->set_thread_state("t-old", ThreadState::closed)));
    clock.advance(1min);
    REQUIRE(ok(db->save_thread(record("t-middle", "beta", "model-of-thread"))));
    REQUIRE(ok(db->session_started(SessionRecord{"s-middle", "t-middle", "bailey", {}, {}, {}})));
    REQUIRE(ok(db->session_ended("s-middle", "idle")));
    clock.advance(1min);
    REQUIRE(ok(db->save_thread(record("t-new", "gamma"))));
    REQUIRE(ok(db->session_started(SessionRecord{"s-new", "t-new", "bailey", {}, {}, {}})));
    auto listed = db->list_threads();
    REQUIRE(ok(listed));
    threads = *listed;
  }
  TempDir dir;
  ManualClock clock;
  std::unique_ptr<ThreadsDb> db;
  std::vector<errand::sessions::ThreadSummary> threads;
};

const boost::json::object& row_of(const boost::json::object& list, std::string_view thread) {
  for (const auto& row : list.at("sessions").as_array()) {
    if (row.as_object().at("thread").as_string() == thread) return row.as_object();
  }
  FAIL("no row for thread " << thread);
  throw std::logic_error("unreachable");
}

std::vector<std::string> thread_order(const boost::json::object& list) {
  std::vector<std::string> order;
  for (const auto& row : list.at("sessions").as_array())
    order.emplace_back(row.as_object().at("thread").as_string());
  return order;
}

}  // namespace

TEST_CASE("rows merge threads.db with the live sessions, newest activity first") {
  Recorded r;
  SecretScrubber secrets;
  const auto now = r.clock.now();
  auto running = live("s-new", "t-new", "gamma", LiveSession::State::running, now + 5s);
  running.doing = "running `make`";
  running.partial_text = "Looking at the build";
  running.model = "live-model";
  auto queued = live("s-queued", "t-unrecorded", "delta", LiveSession::State::queued, now + 10s);
  queued.queue_position = 2;
  // Its thread is still being opened in the chat service: no thread id yet.
  auto opening = live("s-opening", "", "epsilon", LiveSession::State::starting, now + 20s);

  const auto list = session_list(r.threads, {running, queued, opening}, secrets, kDefaultModel);
  CHECK(thread_order(list) ==
        std::vector<std::string>{"s-opening", "t-unrecorded", "t-new", "t-middle", "t-old"});

  const auto& newest = row_of(list, "t-new");
  CHECK(newest.at("session") == "s-new");
  CHECK(newest.at("state") == "running");  // the record says live too, the snapshot says more
  CHECK(newest.at("doing") == "running `make`");
  CHECK(newest.at("partial") == "Looking at the build");
  CHECK(newest.at("model") == "live-model");
  CHECK(newest.at("project") == "gamma");
  CHECK(newest.at("queue_position").is_null());
  CHECK(newest.at("question").is_null());
  CHECK(newest.at("updated_at").as_string() == errand::chat::format_utc(now + 5s));

  const auto& middle = row_of(list, "t-middle");
  CHECK(middle.at("state") == "resumable");
  CHECK(middle.at("session") == "s-middle");
  CHECK(middle.at("model") == "model-of-thread");
  CHECK(middle.at("owner") == "owner-t-middle");
  CHECK(middle.at("doing") == "");
  CHECK(middle.at("partial") == "");
  CHECK(middle.at("started_at").as_string() == errand::chat::format_utc(now - 1min));

  const auto& old = row_of(list, "t-old");
  CHECK(old.at("state") == "closed");
  CHECK(old.at("session").is_null());
  CHECK(old.at("model").as_string() == kDefaultModel);

  const auto& waiting = row_of(list, "t-unrecorded");
  CHECK(waiting.at("state") == "queued");
  CHECK(waiting.at("queue_position") == 2);
  CHECK(waiting.at("session") == "s-queued");
  CHECK(waiting.at("started_at").as_string() == errand::chat::format_utc(now + 10s));

  const auto& unopened = row_of(list, "s-opening");
  CHECK(unopened.at("state") == "starting");
  CHECK(unopened.at("session") == "s-opening");
  CHECK(unopened.at("project") == "epsilon");

  // Every row has every field of the contract's Row, and nothing else.
  for (const auto& row : list.at("sessions").as_array()) {
    std::vector<std::string> keys;
    for (const auto& [key, value] : row.as_object()) keys.emplace_back(key);
    std::sort(keys.begin(), keys.end());
    CHECK(keys == std::vector<std::string>{"doing", "model", "owner", "partial", "project",
                                           "question", "queue_position", "session", "started_at",
                                           "state", "thread", "updated_at"});
  }
}

TEST_CASE("a recorded live thread with nothing running is resumable, not running") {
  Recorded r;
  SecretScrubber secrets;
  const auto list = session_list(r.threads, {}, secrets, kDefaultModel);
  const auto& row = row_of(list, "t-new");
  CHECK(row.at("state") == "resumable");
  CHECK(row.at("session") == "s-new");
  CHECK(thread_order(list) == std::vector<std::string>{"t-new", "t-middle", "t-old"});
}

TEST_CASE("a configured secret in what the agent does or asks never reaches the row") {
  Recorded r;
  const std::string secret = "sk-configured-0123456789";
  SecretScrubber secrets({secret});
  auto asking = live("s-new", "t-new", "gamma", LiveSession::State::running, r.clock.now());
  asking.doing = "running `curl -H " + secret + "`";
  asking.partial_text = "the key is " + secret;
  asking.question = "Allow `echo " + secret + "`?";
  asking.question_options = {{"allow-" + secret, "Allow " + secret}, {"reject", "Reject"}};

  const auto list = session_list(r.threads, {asking}, secrets, kDefaultModel);
  CHECK_THAT(boost::json::serialize(list), !ContainsSubstring(secret));
  const auto& row = row_of(list, "t-new");
  CHECK(row.at("doing") == "running `curl -H [redacted]`");
  CHECK(row.at("partial") == "the key is [redacted]");
  const auto& question = row.at("question").as_object();
  CHECK(question.at("text") == "Allow `echo [redacted]`?");
  const auto& options = question.at("options").as_array();
  REQUIRE(options.size() == 2);
  CHECK(options[0].as_object().at("id") == "allow-[redacted]");
  CHECK(options[0].as_object().at("name") == "Allow [redacted]");
  CHECK(options[1].as_object().at("id") == "reject");
}

TEST_CASE("one row alone: a live session with no record, and a record with no live session") {
  SecretScrubber secrets;
  auto alone = live("s-1", "", "p", LiveSession::State::idle, {});
  const auto row = session_row(nullptr, &alone, secrets, kDefaultModel);
  CHECK(row.at("thread") == "s-1");
  CHECK(row.at("state") == "idle");
  CHECK(row.at("model").as_string() == kDefaultModel);

  auto rec = record("t-9", "p", "m");
  const auto recorded = session_row(&rec, nullptr, secrets, kDefaultModel);
  CHECK(recorded.at("thread") == "t-9");
  CHECK(recorded.at("session").is_null());
  CHECK(recorded.at("model") == "m");
}
