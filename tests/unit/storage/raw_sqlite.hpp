#pragma once

// Reads a database file with SQLite directly, bypassing the layer under test, so the tests see
// what is on disk rather than what the layer reports.

#include <sqlite3.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <filesystem>
#include <string>

namespace errand::test {

inline std::int64_t raw_scalar(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  const int prepared = sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr);
  INFO(sqlite3_errmsg(db));
  std::int64_t value = -1;
  const bool row = prepared == SQLITE_OK && sqlite3_step(statement) == SQLITE_ROW;
  if (row) value = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  sqlite3_close(db);
  REQUIRE(row);
  return value;
}

inline void raw_exec(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  INFO(sqlite3_errmsg(db));
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace errand::test
