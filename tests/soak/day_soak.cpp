// A compressed day: a busy server's traffic, round after round (each round ten minutes of the
// day at full size, 144 of them): a thread opened, an older thread answered again (its session
// idled out, so resumed), now and then a session stopped with !stop, a host granted with !grant,
// and the daemon restarted with SIGTERM. The daemon's memory and open files are read when it is
// quiet (every session idled out or stopped) after the first rounds and again at the end, and
// threads.db's size is set against the records it holds.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/soak/soak_figures.hpp"
#include "tests/soak/soak_process.hpp"
#include "tests/soak/soak_random.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace errand::soak {
namespace {

using namespace std::chrono_literals;
using e2e::E2eHarness;
using e2e::eventually;

constexpr std::string_view kScenario = "day";
constexpr auto npos = std::string::npos;
// Short, so sessions idle out within a round, yet long enough that a !stop or !grant sent just
// after a turn's answer reaches the session before its idle timeout does.
constexpr int kIdleMs = 4000;

// threads.db as SQLite sees it: its pages, the free ones among them, what waits in the
// write-ahead log, and the rows of every table.
struct DbFigures {
  std::int64_t page_size = 0;
  std::int64_t pages = 0;
  std::int64_t free_pages = 0;
  std::int64_t wal_bytes = 0;
  std::int64_t rows = 0;
  std::int64_t bytes() const { return page_size * pages; }
};

std::int64_t bytes_of(const std::filesystem::path& file) {
  struct stat st {};
  return ::stat(file.c_str(), &st) == 0 ? st.st_size : 0;
}

std::int64_t single_integer(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK);
  const std::int64_t value =
      sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : -1;
  sqlite3_finalize(statement);
  return value;
}

DbFigures db_figures(const E2eHarness& h) {
  const auto file = h.state_dir() / "threads.db";
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  DbFigures out;
  out.page_size = single_integer(db, "PRAGMA page_size");
  out.pages = single_integer(db, "PRAGMA page_count");
  out.free_pages = single_integer(db, "PRAGMA freelist_count");
  std::vector<std::string> tables;
  sqlite3_stmt* statement = nullptr;
  REQUIRE(sqlite3_prepare_v2(db,
                             "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                             "LIKE 'sqlite_%'",
                             -1, &statement, nullptr) == SQLITE_OK);
  while (sqlite3_step(statement) == SQLITE_ROW)
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
  sqlite3_finalize(statement);
  for (const auto& table : tables) out.rows += single_integer(db, "SELECT count(*) FROM " + table);
  sqlite3_close(db);
  out.wal_bytes = bytes_of(std::filesystem::path(file.string() + "-wal"));
  return out;
}

struct DaemonFigures {
  std::uint64_t rss_kib = 0;
  std::size_t fds = 0;
};

// Waits until no session is live and no turn is unfinished, so the daemon holds only what it
// holds at rest, then reads it.
DaemonFigures at_rest(E2eHarness& h) {
  const bool quiet = eventually(
      [&] {
        auto db = h.threads_db();
        for (const auto& thread : db->list_threads().value())
          if (thread.thread.state == sessions::ThreadState::live) return false;
        return true;
      },
      60s);
  INFO(h.daemon_log().substr(h.daemon_log().size() > 8000 ? h.daemon_log().size() - 8000 : 0));
  REQUIRE(quiet);
  std::this_thread::sleep_for(1s);  // the last session's sandbox and broker let go
  const auto rss = resident_kib(h.daemon().pid());
  const auto fds = open_descriptors(h.daemon().pid());
  REQUIRE(rss.has_value());
  REQUIRE(fds.has_value());
  return {*rss, *fds};
}

struct Day {
  E2eHarness& h;
  e2e::LoopbackHostServer& server;
  std::mt19937_64& random;
  std::vector<std::string> threads;
  int opened = 0, resumed = 0, stopped = 0, stops_met_idle = 0, grants = 0, restarts = 0;
  int unanswered = 0, grants_refused = 0;
  std::string problems;

  bool answered(const std::string& thread, const std::string& needle, std::size_t times = 1) {
    if (h.wait_for_text(thread, needle, 90s, times)) return true;
    ++unanswered;
    const auto problem =
        "no \"" + needle + "\" in thread " + thread + ":\n" + h.bot_text(thread) + "\n";
    std::fprintf(stderr, "soak day: %s", problem.c_str());
    // The first problem's daemon log, while it still shows what went wrong.
    if (problems.empty()) {
      const auto log = h.daemon_log();
      std::fprintf(stderr, "%s\n", log.substr(log.size() > 12000 ? log.size() - 12000 : 0).c_str());
    }
    problems += problem;
    return false;
  }

  void open(int round) {
    const auto tag = "d" + std::to_string(round) + "x";
    const auto thread =
        h.post(tag + ": say opened-" + tag + "\nprovider round " + tag + "\nrun echo ran-" + tag);
    threads.push_back(thread);
    ++opened;
    answered(thread, "done in");
  }

  // A reply in an older thread, whose session has most likely idled out or been stopped.
  void reply(int round) {
    if (threads.size() < 2) return;
    const auto& thread = threads[random() % (threads.size() - 1)];
    const auto sessions_before = h.sessions_of(thread).size();
    const auto done_before = h.count_text(thread, "done in");
    h.post("say again-d" + std::to_string(round) + "x", thread);
    if (answered(thread, "done in", done_before + 1) &&
        h.sessions_of(thread).size() > sessions_before)
      ++resumed;
  }

  // !stop on the thread just answered. Its session may reach its idle timeout at the same
  // moment; then the daemon has already begun to stop it for that, says "stopping the session"
  // to the !stop and sends no second notice, and the session ends as idle.
  void stop_one() {
    const auto& thread = threads.back();
    const auto before = h.count_text(thread, "the session stopped");
    h.post("!stop", thread);
    const auto ended_idle = [&] {
      const auto sessions = h.sessions_of(thread);
      return !sessions.empty() && sessions.back().end_reason == "idle";
    };
    const bool ended = eventually(
        [&] { return h.count_text(thread, "the session stopped") > before || ended_idle(); }, 90s);
    if (!ended) {
      answered(thread, "the session stopped", before + 1);
      return;
    }
    if (h.count_text(thread, "the session stopped") > before)
      ++stopped;
    else
      ++stops_met_idle;
  }

  void grant(int round) {
    const auto thread = h.post("g" + std::to_string(round) + "x: fetch " + server.url());
    threads.push_back(thread);
    ++opened;
    if (!answered(thread, "`!grant " + server.host() + "`") || !answered(thread, "done in")) return;
    h.post("!grant " + server.host(), thread);
    if (!answered(thread, "is granted for its next connection")) return;
    h.post("fetch " + server.url(), thread);
    if (!answered(thread, "done in", 2)) return;
    ++grants;
    const auto text = h.bot_text(thread);
    if (text.find("200 OK") == npos) {
      ++grants_refused;
      problems += "the granted fetch in " + thread + " did not get through:\n" + text + "\n";
    }
  }

  void restart() {
    const auto code = h.stop();
    INFO(h.daemon_log().substr(h.daemon_log().size() > 8000 ? h.daemon_log().size() - 8000 : 0));
    REQUIRE(code == 0);
    h.start();
    ++restarts;
  }

  void round(int r, int rounds, int restart_every) {
    // Where a slow or stuck run is, on standard error.
    std::fprintf(stderr, "soak day: round %d, %d unanswered so far\n", r, unanswered);
    open(r);
    if (r % 3 == 2) stop_one();
    reply(r);
    if (r % 6 == 4) grant(r);
    // Never at the very end: the last daemon serves a stretch of the day before it is read.
    if ((r + 1) % restart_every == 0 && r + 1 < rounds) restart();
  }
};

double ratio(double end, double start) {
  return start > 0 ? end / start : 0;
}

TEST_CASE("a compressed day of traffic: memory, files and threads.db stay level", "[soak]") {
  // At full size 144 rounds of ten minutes, restarted every six hours; short, 10 rounds with
  // one restart in the middle.
  const int rounds = sized(10, 144);
  const int restart_every = sized(5, 36);
  const int warm_up = sized(3, 12);
  auto random = seeded_generator(kScenario);

  e2e::LoopbackHostServer server;
  if (!server.problem().empty()) FAIL(server.problem());
  E2eHarness h;
  h.set("timeouts.idleMs", kIdleMs);
  h.set("limits.maxConcurrentTurns", 4);
  h.set("limits.maxLiveSessions", 8);
  h.set("sandbox.egressPorts", boost::json::array{443, server.port()});
  h.set("logging.level", "info");  // a day of debug lines would only slow the run
  h.start();

  const auto started = std::chrono::steady_clock::now();
  Day day{h, server, random, {}, 0, 0, 0, 0, 0, 0, 0, 0, {}};
  DaemonFigures first, last;
  DbFigures db_first, db_last;
  for (int r = 0; r < rounds; ++r) {
    day.round(r, rounds, restart_every);
    if (r == warm_up - 1) {
      first = at_rest(h);
      db_first = db_figures(h);
    }
  }
  last = at_rest(h);
  // A stopped session's broker and sandbox let go of their descriptors a moment after its thread
  // stops being live; on a loaded machine that moment can pass the second at_rest waits (a CI
  // run read 32 against 29 at the start). A leak stays, so it still fails the check below.
  eventually(
      [&] {
        if (const auto fds = open_descriptors(h.daemon().pid())) last.fds = *fds;
        return static_cast<double>(last.fds) <= static_cast<double>(first.fds) * 1.10;
      },
      20s);
  db_last = db_figures(h);
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::size_t idled_out = 0;
  for (const auto& thread : day.threads)
    for (const auto& session : h.sessions_of(thread)) idled_out += session.end_reason == "idle";

  const double bytes_per_record_first = ratio(db_first.bytes(), db_first.rows);
  const double bytes_per_record_last = ratio(db_last.bytes(), db_last.rows);
  const double added_rows = static_cast<double>(db_last.rows - db_first.rows);
  const double added_bytes_per_record =
      added_rows > 0 ? static_cast<double>(db_last.bytes() - db_first.bytes()) / added_rows : 0;

  report(kScenario, "rounds", rounds);
  report(kScenario, "wall seconds", seconds);
  report(kScenario, "threads opened", day.opened);
  report(kScenario, "sessions idled out", static_cast<double>(idled_out));
  report(kScenario, "threads resumed", day.resumed);
  report(kScenario, "sessions stopped", day.stopped);
  report(kScenario, "!stop that met the idle timeout", day.stops_met_idle);
  report(kScenario, "grants", day.grants);
  report(kScenario, "restarts", day.restarts);
  report(kScenario, "prompts unanswered", day.unanswered);
  report(kScenario, "daemon RSS KiB at start", static_cast<double>(first.rss_kib));
  report(kScenario, "daemon RSS KiB at end", static_cast<double>(last.rss_kib));
  report(kScenario, "daemon RSS end/start", ratio(last.rss_kib, first.rss_kib));
  report(kScenario, "daemon open fds at start", static_cast<double>(first.fds));
  report(kScenario, "daemon open fds at end", static_cast<double>(last.fds));
  report(kScenario, "threads.db records at start", static_cast<double>(db_first.rows));
  report(kScenario, "threads.db records at end", static_cast<double>(db_last.rows));
  report(kScenario, "threads.db bytes at start", static_cast<double>(db_first.bytes()));
  report(kScenario, "threads.db bytes at end", static_cast<double>(db_last.bytes()));
  report(kScenario, "threads.db bytes per record at start", bytes_per_record_first);
  report(kScenario, "threads.db bytes per record at end", bytes_per_record_last);
  report(kScenario, "threads.db bytes per added record", added_bytes_per_record);
  report(kScenario, "threads.db free pages at end", static_cast<double>(db_last.free_pages));
  report(kScenario, "threads.db pages at end", static_cast<double>(db_last.pages));
  report(kScenario, "threads.db WAL bytes at end", static_cast<double>(db_last.wal_bytes));

  INFO(day.problems);
  CHECK(day.unanswered == 0);
  CHECK(day.grants_refused == 0);
  CHECK(day.resumed > 0);
  CHECK(idled_out > 0);
  // Open files: the same at rest, whatever the day did, within 10%.
  CHECK(static_cast<double>(last.fds) <= static_cast<double>(first.fds) * 1.10);
  CHECK(static_cast<double>(last.fds) >= static_cast<double>(first.fds) * 0.90);
  // Memory: within 10% over the full day. A short run is read after three rounds, before the
  // daemon's allocator arenas (one per thread that has allocated), SQLite's page cache and the
  // TLS and JSON buffers have grown to what a busy day keeps, and across a restart whose new
  // process starts from nothing; there a growth of half again is allowed, which a leak of a
  // session's worth of buffers per round would still pass over in a full run.
  // Only growth is held to the bound: the last daemon is a process restarted during the day, so
  // it may well hold less than the first did, and holding less is no leak.
  const double rss_growth_allowed = full_run() ? 1.10 : 1.50;
  CHECK(static_cast<double>(last.rss_kib) <=
        static_cast<double>(first.rss_kib) * rss_growth_allowed);
  // threads.db grows with its records and no faster: a record (a thread, session or turn row
  // with its index entries) takes a few hundred bytes, so a kibibyte per added record is room
  // for page slack but not for churn that leaves pages behind; free pages stay a small share,
  // and the write-ahead log is checkpointed rather than growing (SQLite checkpoints it at
  // 1000 pages).
  CHECK(added_rows > 0);
  CHECK(added_bytes_per_record <= 1024);
  CHECK(db_last.free_pages * 10 <= db_last.pages);
  CHECK(db_last.wal_bytes <= 2 * 1000 * (db_last.page_size + 24) + 32);
}

}  // namespace
}  // namespace errand::soak
