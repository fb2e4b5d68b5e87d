// The core's side of kept sandboxes (kept_sandbox_keeper.hpp): which threads threads.db says
// still want one, and the rounds that tell the backend, against a real threads.db and a backend
// that records what it is told.

#include "core/sessions/kept_sandbox_keeper.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <spdlog/sinks/null_sink.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

using namespace errand::sessions;
using errand::test::ManualClock;
using errand::test::ok;
using errand::test::TempDir;
namespace sdk = errand::sdk;

namespace {

ThreadRecord kept_thread(std::string id, ThreadState state) {
  ThreadRecord t;
  t.thread_id = std::move(id);
  t.project_name = "demo";
  t.project_path = "/srv/projects/demo";
  t.owner_id = "owner-1";
  t.state = state;
  return t;
}

// What a backend is told, round by round, each round's keys sorted.
class RecordingBackend final : public sdk::KeptSandboxes {
 public:
  boost::asio::awaitable<sdk::SweepReport> keep_only(std::vector<std::string> keys) override {
    std::sort(keys.begin(), keys.end());
    std::lock_guard lock(mutex_);
    rounds_.push_back(std::move(keys));
    co_return sdk::SweepReport{};
  }
  std::vector<std::vector<std::string>> rounds() const {
    std::lock_guard lock(mutex_);
    return rounds_;
  }
  // Waits (a few seconds at most) until at least count rounds were told.
  bool await_rounds(std::size_t count) const {
    for (int i = 0; i < 500; ++i) {
      if (rounds().size() >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::vector<std::string>> rounds_;
};

}  // namespace

TEST_CASE("threads neither closed nor archived are the ones whose sandboxes are kept") {
  std::vector<ThreadSummary> threads(4);
  threads[0].thread = kept_thread("live", ThreadState::live);
  threads[1].thread = kept_thread("idle", ThreadState::resumable);
  threads[2].thread = kept_thread("archived", ThreadState::resumable);
  threads[2].thread.archived_at = std::chrono::system_clock::now();
  threads[3].thread = kept_thread("deleted", ThreadState::closed);
  CHECK(threads_keeping_sandboxes(threads) == std::vector<std::string>{"live", "idle"});
  CHECK(threads_keeping_sandboxes({}).empty());
}

TEST_CASE("the keeper tells the backend at its start and whenever asked, reading threads.db anew") {
  TempDir dir;
  ManualClock clock;
  auto opened = ThreadsDb::open(dir / "threads.db", clock);
  REQUIRE(ok(opened));
  ThreadsStore store(std::move(*opened));
  auto& db = store.blocking();
  REQUIRE(ok(db.save_thread(kept_thread("t-live", ThreadState::live))));
  REQUIRE(ok(db.save_thread(kept_thread("t-idle", ThreadState::resumable))));
  REQUIRE(ok(db.save_thread(kept_thread("t-stopped", ThreadState::resumable))));
  REQUIRE(ok(db.set_thread_archived("t-stopped")));
  REQUIRE(ok(db.save_thread(kept_thread("t-deleted", ThreadState::closed))));

  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::thread runner([&] { io.run(); });
  RecordingBackend backend;
  auto keeper = KeptSandboxKeeper::create(
      io.get_executor(), backend, store,
      std::make_shared<spdlog::logger>("kept", std::make_shared<spdlog::sinks::null_sink_mt>()));
  keeper->start();
  REQUIRE(backend.await_rounds(1));
  CHECK(backend.rounds()[0] == std::vector<std::string>{"t-idle", "t-live"});

  // `errand threads remove` took t-idle away while the daemon ran; a session's end asks again.
  REQUIRE(ok(db.remove_thread("t-idle")));
  keeper->ask_soon();
  REQUIRE(backend.await_rounds(2));
  CHECK(backend.rounds()[1] == std::vector<std::string>{"t-live"});

  // Stopped: no round comes after, however it is asked.
  keeper->stop();
  keeper->ask_soon();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(backend.rounds().size() == 2);
  work.reset();
  io.stop();
  runner.join();
}
