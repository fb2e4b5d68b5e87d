// `errand threads` against a real threads.db and receipts.db in the harness's state directory.

#include "core/daemon/system_clock.hpp"
#include "core/receipts/receipts_db.hpp"
#include "core/threads/threads_db.hpp"
#include "tests/support/daemon_harness.hpp"

#include <spdlog/sinks/null_sink.h>
#include <catch2/catch_test_macros.hpp>

using namespace errand;
using namespace errand::test;

namespace {

enum class Archived { no, by_stop };

// One thread with one ended session, a turn, a receipt and the session's directories. by_stop
// leaves it as !stop does: the session ended by a person, the thread archived in the chat
// service and still resumable.
void seed_thread(const DaemonHarness& h, sessions::ThreadState state,
                 Archived archived = Archived::no) {
  const auto state_dir = h.dir() / "state";
  std::filesystem::create_directories(state_dir);
  daemon::SystemClock clock;
  auto db = sessions::ThreadsDb::open(state_dir / "threads.db", clock);
  REQUIRE(db.has_value());
  auto& threads = **db;
  sessions::ThreadRecord thread;
  thread.thread_id = "1300000000000000001";
  thread.project_name = "widget";
  thread.project_path = (h.dir() / "projects" / "widget").string();
  thread.owner_id = "200";
  REQUIRE(threads.save_thread(thread).has_value());
  REQUIRE(threads.session_started({"s-abc123", thread.thread_id, "bailey", clock.now(), {}, ""})
              .has_value());
  REQUIRE(threads.admit_message({"1400", thread.thread_id, "s-abc123", "200"}).has_value());
  REQUIRE(threads.turn_admitted("1400", "s-abc123").has_value());
  REQUIRE(threads.turn_ended("1400", sessions::TurnOutcome::completed).has_value());
  REQUIRE(threads.session_ended("s-abc123", "stopped by 200").has_value());
  REQUIRE(threads.set_thread_state(thread.thread_id, state).has_value());
  if (archived == Archived::by_stop)
    REQUIRE(threads.set_thread_archived(thread.thread_id).has_value());

  auto receipts = receipts::ReceiptsDb::open(
      state_dir / "receipts.db",
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
  REQUIRE(receipts.has_value());
  sdk::ProviderReceipt r;
  r.ended_at = clock.now();
  r.session_id = "s-abc123";
  r.provider = "anthropic";
  r.credential_name = "ANTHROPIC_API_KEY";
  r.host = "api.anthropic.com";
  r.method = "POST";
  r.path = "/v1/messages";
  r.status = 200;
  (*receipts)->record(r);
  (*receipts)->flush();

  std::filesystem::create_directories(state_dir / "sessions" / "s-abc123" / "home");
  std::filesystem::create_directories(state_dir / "records" / "s-abc123");
}

}  // namespace

TEST_CASE("errand threads list and show read threads.db and the newest receipts") {
  DaemonHarness h;
  h.write_config(h.config_text());
  seed_thread(h, sessions::ThreadState::resumable);
  const auto list = h.run({"threads", "list"});
  CHECK(list.exit_code == 0);
  CHECK(list.out.find("1300000000000000001") != std::string::npos);
  CHECK(list.out.find("resumable") != std::string::npos);
  CHECK(list.out.find("widget") != std::string::npos);

  const auto show = h.run({"threads", "show", "13000"});
  CHECK(show.exit_code == 0);
  CHECK(show.out.find("s-abc123") != std::string::npos);
  CHECK(show.out.find("/v1/messages") != std::string::npos);
  CHECK(show.out.find("completed") != std::string::npos);

  const auto missing = h.run({"threads", "show", "999"});
  CHECK(missing.exit_code == 1);
}

TEST_CASE("errand threads remove says what would go, then removes it only with --yes") {
  DaemonHarness h;
  h.write_config(h.config_text());
  seed_thread(h, sessions::ThreadState::resumable);
  const auto state_dir = h.dir() / "state";

  const auto dry = h.run({"threads", "remove", "1300000000000000001"});
  CHECK(dry.exit_code == 1);
  CHECK(dry.out.find((state_dir / "sessions" / "s-abc123").string()) != std::string::npos);
  CHECK(std::filesystem::exists(state_dir / "sessions" / "s-abc123"));

  const auto done = h.run({"threads", "remove", "1300000000000000001", "--yes"});
  CHECK(done.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(state_dir / "sessions" / "s-abc123"));
  CHECK_FALSE(std::filesystem::exists(state_dir / "records" / "s-abc123"));
  const auto list = h.run({"threads", "list"});
  CHECK(list.out.find("1300000000000000001") == std::string::npos);
  const auto show = h.run({"threads", "show", "1300000000000000001"});
  CHECK(show.exit_code == 1);
}

TEST_CASE("errand threads collect removes what deleted threads left, and refuses live ones") {
  DaemonHarness h;
  h.write_config(h.config_text());
  seed_thread(h, sessions::ThreadState::closed);
  const auto collected = h.run({"threads", "collect", "--yes"});
  CHECK(collected.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(h.dir() / "state" / "sessions" / "s-abc123"));

  DaemonHarness live;
  live.write_config(live.config_text());
  seed_thread(live, sessions::ThreadState::live);
  const auto refused = live.run({"threads", "remove", "13", "--yes"});
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("live session") != std::string::npos);
  CHECK(std::filesystem::exists(live.dir() / "state" / "sessions" / "s-abc123"));
}

TEST_CASE("errand threads collect removes a thread archived by !stop, not one merely idle") {
  DaemonHarness stopped;
  stopped.write_config(stopped.config_text());
  seed_thread(stopped, sessions::ThreadState::resumable, Archived::by_stop);
  CHECK(stopped.run({"threads", "list"}).out.find("resumable, archived") != std::string::npos);
  const auto dry = stopped.run({"threads", "collect"});
  CHECK(dry.exit_code == 1);
  CHECK(dry.out.find("would remove thread 1300000000000000001") != std::string::npos);
  const auto collected = stopped.run({"threads", "collect", "--yes"});
  CHECK(collected.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(stopped.dir() / "state" / "sessions" / "s-abc123"));
  CHECK(stopped.run({"threads", "show", "1300000000000000001"}).exit_code == 1);

  DaemonHarness idle;
  idle.write_config(idle.config_text());
  seed_thread(idle, sessions::ThreadState::resumable);
  const auto nothing = idle.run({"threads", "collect", "--yes"});
  CHECK(nothing.exit_code == 0);
  CHECK(nothing.out.find("nothing to collect") != std::string::npos);
  CHECK(std::filesystem::exists(idle.dir() / "state" / "sessions" / "s-abc123"));
}
