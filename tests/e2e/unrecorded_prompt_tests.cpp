// A prompt that threads.db cannot record starts nothing, and must say so: before, the daemon only
// logged the error and the person who asked waited for an answer that never came.
#include <sqlite3.h>

#include <catch2/catch_test_macros.hpp>

#include "tests/e2e/e2e_harness.hpp"

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

// Holds threads.db's write lock, as another writer that does not let go would, until released.
class WriteLockHolder {
 public:
  explicit WriteLockHolder(const std::filesystem::path& file) {
    REQUIRE(sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  }
  ~WriteLockHolder() { release(); }
  WriteLockHolder(const WriteLockHolder&) = delete;
  WriteLockHolder& operator=(const WriteLockHolder&) = delete;
  void release() {
    if (db_ == nullptr) return;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace

TEST_CASE("a prompt threads.db cannot record is refused aloud, and the next one is answered",
          "[e2e]") {
  E2eHarness h;
  h.start();
  const auto channel = h.discord().options().channel_id;
  {
    // Held past the daemon's busy timeout (5 s), so recording the message fails.
    WriteLockHolder lock(h.state_dir() / "threads.db");
    h.post("hello while the database is locked");
    REQUIRE(h.wait_for_text(channel, "could not record this message, so it started nothing", 60s));
  }
  CHECK(h.daemon_log().find("threads.db could not record message") != std::string::npos);
  // Nothing was left half-done: the next message opens its session as usual (a thread opened
  // from a message has the message's id).
  const auto thread = h.post("demo: say hello after the lock is gone");
  CHECK(h.wait_for_text(thread, "done in"));
}

}  // namespace errand::e2e
