#include <sqlite3.h>
#include <stdlib.h>

#include <catch2/catch_test_macros.hpp>

#include "tests/support/result_printing.hpp"

#include <spdlog/sinks/ringbuffer_sink.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/receipts/receipts_db.hpp"
#include "core/receipts/receipts_schema.hpp"
#include "tests/support/sample_receipt.hpp"
#include "tests/support/temp_dir.hpp"

using errand::receipts::ReceiptsDb;
using errand::sdk::ProviderReceipt;
using errand::test::sample_receipt;
using errand::test::TempDir;
using Outcome = ProviderReceipt::Outcome;

namespace {

std::shared_ptr<spdlog::logger> capture(std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt>& sink) {
  sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
  return std::make_shared<spdlog::logger>("receipts", sink);
}

int scalar(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  int out = -1;
  if (sqlite3_step(stmt) == SQLITE_ROW) out = sqlite3_column_int(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

std::string dump_text(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT * FROM receipts", -1, &stmt, nullptr);
  std::string out;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const auto* t = sqlite3_column_text(stmt, i);
      out += t ? reinterpret_cast<const char*>(t) : "";
      out += '|';
    }
    out += '\n';
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

}  // namespace

TEST_CASE("a receipt is written with every field and read back", "[receipts]") {
  TempDir dir;
  const auto file = dir.path() / "receipts.db";
  auto db = ReceiptsDb::open(file, nullptr);
  REQUIRE(db);
  (*db)->record(sample_receipt("s1", 1));
  auto rows = (*db)->newest("s1", 10);
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  const auto& r = rows->front();
  CHECK(r.ended_at == sample_receipt("s1", 1).ended_at);
  CHECK(r.session_id == "s1");
  CHECK(r.provider == "anthropic");
  CHECK(r.credential_name == "ANTHROPIC_API_KEY");
  CHECK(r.host == "api.anthropic.com");
  CHECK(r.method == "POST");
  CHECK(r.path == "/v1/messages");
  CHECK(r.query_length == 12);
  CHECK(r.status == 200);
  CHECK(r.duration == std::chrono::milliseconds(345));
  CHECK(r.bytes_up == 1024);
  CHECK(r.bytes_down == 4096);
  CHECK(r.outcome == Outcome::completed);
}

TEST_CASE("the file is in WAL mode with the current schema version", "[receipts]") {
  TempDir dir;
  const auto file = dir.path() / "receipts.db";
  { REQUIRE(ReceiptsDb::open(file, nullptr)); }
  // Receipts name hosts, paths and credential names: only the daemon's user may read them.
  CHECK((std::filesystem::status(file).permissions() & std::filesystem::perms::all) ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  CHECK(scalar(file, "PRAGMA user_version") == errand::receipts::kSchemaVersion);
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr);
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))) == "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  // The columns are exactly the receipt's fields.
  CHECK(scalar(file, "SELECT count(*) FROM pragma_table_info('receipts')") == 14);
  // Opening again migrates nothing and keeps rows.
  {
    auto again = ReceiptsDb::open(file, nullptr);
    REQUIRE(again);
    (*again)->record(sample_receipt("s", 1));
  }
  auto third = ReceiptsDb::open(file, nullptr);
  REQUIRE(third);
  CHECK((*third)->newest("s", 5)->size() == 1);
}

TEST_CASE("a file from a newer errand is refused, not rewritten", "[receipts]") {
  TempDir dir;
  const auto file = dir.path() / "receipts.db";
  {
    sqlite3* db = nullptr;
    sqlite3_open(file.c_str(), &db);
    sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  const auto db = ReceiptsDb::open(file, nullptr);
  REQUIRE_FALSE(db);
  CHECK(db.error().message.find("schema version 99") != std::string::npos);
  CHECK(scalar(file, "PRAGMA user_version") == 99);
}

TEST_CASE("an unversioned file is migrated on open", "[receipts]") {
  TempDir dir;
  const auto file = dir.path() / "receipts.db";
  {
    sqlite3* db = nullptr;
    sqlite3_open(file.c_str(), &db);
    sqlite3_exec(db, "CREATE TABLE unrelated (x)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  auto db = ReceiptsDb::open(file, nullptr);
  REQUIRE(db);
  CHECK(scalar(file, "PRAGMA user_version") == 1);
  CHECK(scalar(file, "SELECT count(*) FROM sqlite_master WHERE name = 'receipts'") == 1);
}

TEST_CASE("newest returns a session's rows newest first, up to the limit", "[receipts]") {
  TempDir dir;
  auto db = ReceiptsDb::open(dir.path() / "receipts.db", nullptr);
  REQUIRE(db);
  for (int i = 0; i < 5; ++i) (*db)->record(sample_receipt("a", i));
  (*db)->record(sample_receipt("b", 9));
  auto rows = (*db)->newest("a", 3);
  REQUIRE(rows);
  REQUIRE(rows->size() == 3);
  CHECK((*rows)[0].ended_at > (*rows)[1].ended_at);
  CHECK((*rows)[1].ended_at > (*rows)[2].ended_at);
  for (const auto& r : *rows) CHECK(r.session_id == "a");
  auto removed = (*db)->remove_session("a");
  REQUIRE(removed);
  CHECK(*removed == 5);
  CHECK((*db)->newest("a", 10)->empty());
  CHECK((*db)->newest("b", 10)->size() == 1);
}

TEST_CASE("no minted value, control character or odd method reaches a row", "[receipts]") {
  TempDir dir;
  const auto file = dir.path() / "receipts.db";
  const std::string minted = "errand-session-" + std::string(64, 'c');
  {
    auto db = ReceiptsDb::open(file, nullptr);
    REQUIRE(db);
    auto r = sample_receipt("s", 1);
    r.method = "BREW";
    r.path = "/v1/" + minted + "/\x1b[31m" + std::string(400, 'z');
    r.outcome = Outcome::denied;
    (*db)->record(r);
    r.outcome = Outcome::upstream_unreachable;
    (*db)->record(r);
  }
  const auto text = dump_text(file);
  CHECK(text.find(minted) == std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("|OTHER|") != std::string::npos);
  CHECK(text.find("|/v1/[redacted]/\\x1b[31mzzz") != std::string::npos);
  CHECK(text.find("|denied|") != std::string::npos);
  CHECK(text.find("|upstream-unreachable|") != std::string::npos);
  CHECK(scalar(file, "SELECT max(length(path)) FROM receipts") == 256);
}

TEST_CASE("a receipt that cannot be written is logged and the caller goes on", "[receipts]") {
  TempDir dir;
  const auto file = dir.path() / "receipts.db";
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink;
  auto db = ReceiptsDb::open(file, capture(sink));
  REQUIRE(db);
  {
    // Another connection takes the write lock and holds it past the busy timeout... briefly:
    // dropping the table instead makes every insert fail at once.
    sqlite3* other = nullptr;
    sqlite3_open(file.c_str(), &other);
    REQUIRE(sqlite3_exec(other, "DROP TABLE receipts", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(other);
  }
  (*db)->record(sample_receipt("s", 1));
  (*db)->flush();
  CHECK((*db)->lost() == 1);
  bool logged = false;
  for (const auto& line : sink->last_formatted())
    logged = logged || line.find("could not be written") != std::string::npos;
  CHECK(logged);
}

TEST_CASE("recording does not wait for the disk", "[receipts]") {
  // How fast the hand-over is, is tests/bench/receipts' figure; this proves the order of events:
  // every record() returns while another connection holds the write lock, so nothing can reach
  // the disk until the lock is let go, and then everything does.
  TempDir dir;
  const auto file = dir.path() / "receipts.db";
  auto db = ReceiptsDb::open(file, nullptr);
  REQUIRE(db);
  sqlite3* other = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &other) == SQLITE_OK);
  REQUIRE(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK);
  for (int i = 0; i < 2000; ++i) (*db)->record(sample_receipt("fast", i));
  // Still locked out: not one row has been written, and none was given up on.
  CHECK(scalar(file, "SELECT count(*) FROM receipts WHERE session_id = 'fast'") == 0);
  CHECK((*db)->lost() == 0);
  REQUIRE(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(other);
  CHECK((*db)->newest("fast", 5000)->size() == 2000);
  CHECK((*db)->lost() == 0);
}
