#include "core/storage/connection.hpp"

#include <sqlite3.h>

#include <fmt/format.h>
#include <string>

#include "core/storage/failure.hpp"
#include "core/storage/private_file.hpp"
#include "core/storage/statement.hpp"

namespace errand::storage {

sdk::Result<std::unique_ptr<Connection>> Connection::open(const std::filesystem::path& file) {
  if (auto made = make_private_file(file); !made) return made.error();
  sqlite3* db = nullptr;
  // NOFOLLOW again on SQLite's own open: the link check above and this open are two steps.
  const int rc = sqlite3_open_v2(
      file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW,
      nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return sdk::make_error(fmt::format("cannot open {}: {}", file.string(), why));
  }
  std::unique_ptr<Connection> connection(new Connection(db, file));
  try {
    connection->configure();
  } catch (const Failure& e) {
    return sdk::make_error(e.what());
  }
  return connection;
}

void Connection::configure() {
  sqlite3_busy_timeout(db_, 5000);
  sqlite3_extended_result_codes(db_, 1);
  // WAL lets `errand threads` read while the daemon writes.
  auto mode = prepare("PRAGMA journal_mode=WAL");
  if (!mode.step() || mode.text(0) != "wal") {
    throw Failure(fmt::format(
        "{} could not be put in WAL mode (the file system may not support it); errand's "
        "databases need a local file system",
        file_.string()));
  }
  exec("PRAGMA foreign_keys=ON");
  exec("PRAGMA synchronous=NORMAL");
}

Connection::~Connection() {
  sqlite3_close_v2(db_);
}

void Connection::fail(std::string_view what) const {
  throw Failure(fmt::format("{}: {}", what, sqlite3_errmsg(db_)));
}

void Connection::exec(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string why = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw Failure("SQL failed: " + why);
  }
}

Statement Connection::prepare(std::string_view sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr) !=
      SQLITE_OK) {
    fail("cannot prepare a statement");
  }
  return Statement(*this, statement);
}

std::int64_t Connection::changes() const {
  return sqlite3_changes64(db_);
}

int Connection::user_version() {
  auto version = prepare("PRAGMA user_version");
  if (!version.step()) fail("cannot read the schema version");
  return static_cast<int>(version.integer(0));
}

void Connection::set_user_version(int version) {
  exec(fmt::format("PRAGMA user_version={}", version));
}

}  // namespace errand::storage
