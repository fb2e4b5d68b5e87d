#include "core/receipts/receipts_schema.hpp"

#include <array>
#include <string>

namespace errand::receipts {
namespace {

// Index i takes the schema from version i to version i + 1. Append only.
constexpr std::array<const char*, kSchemaVersion> kMigrations{
    R"sql(
CREATE TABLE receipts (
  id              INTEGER PRIMARY KEY,
  ended_at_ms     INTEGER NOT NULL,
  session_id      TEXT    NOT NULL,
  provider        TEXT    NOT NULL,
  credential_name TEXT    NOT NULL,
  host            TEXT    NOT NULL,
  method          TEXT    NOT NULL,
  path            TEXT    NOT NULL,
  query_length    INTEGER NOT NULL,
  status          INTEGER NOT NULL,
  duration_ms     INTEGER NOT NULL,
  bytes_up        INTEGER NOT NULL,
  bytes_down      INTEGER NOT NULL,
  outcome         TEXT    NOT NULL CHECK (outcome IN
                    ('completed', 'interrupted', 'denied', 'refused', 'upstream-unreachable'))
);
CREATE INDEX receipts_by_session ON receipts (session_id, ended_at_ms);
)sql",
};

sdk::Result<void> exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    return sdk::make_error(text);
  }
  return {};
}

sdk::Result<int> user_version(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr) != SQLITE_OK)
    return sdk::make_error(sqlite3_errmsg(db));
  int version = 0;
  if (sqlite3_step(stmt) == SQLITE_ROW) version = sqlite3_column_int(stmt, 0);
  sqlite3_finalize(stmt);
  return version;
}

}  // namespace

sdk::Result<void> migrate(sqlite3* db) {
  if (auto begun = exec(db, "BEGIN IMMEDIATE"); !begun)
    return sdk::make_error("receipts.db could not be locked to check its schema: " +
                           begun.error().message);
  auto version = user_version(db);
  if (!version) {
    (void)exec(db, "ROLLBACK");
    return version.error();
  }
  if (*version > kSchemaVersion) {
    (void)exec(db, "ROLLBACK");
    return sdk::make_error("receipts.db has schema version " + std::to_string(*version) +
                           ", newer than the " + std::to_string(kSchemaVersion) +
                           " this errand knows; run the newer errand or move the file aside");
  }
  for (int v = *version; v < kSchemaVersion; ++v) {
    if (auto applied = exec(db, kMigrations[static_cast<std::size_t>(v)]); !applied) {
      (void)exec(db, "ROLLBACK");
      return sdk::make_error("receipts.db could not be migrated to schema version " +
                             std::to_string(v + 1) + ": " + applied.error().message);
    }
  }
  if (auto set = exec(db, "PRAGMA user_version = " + std::to_string(kSchemaVersion)); !set) {
    (void)exec(db, "ROLLBACK");
    return set.error();
  }
  if (auto committed = exec(db, "COMMIT"); !committed) {
    (void)exec(db, "ROLLBACK");
    return committed.error();
  }
  return {};
}

}  // namespace errand::receipts
