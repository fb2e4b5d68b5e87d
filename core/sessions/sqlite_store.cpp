#include "core/sessions/sqlite_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <utility>

namespace errand::sessions {

namespace {

// The database holds who asked what and when; only the daemon's user may read it. Creating the
// file ourselves fixes its mode before SQLite writes a byte, and SQLite gives the -wal and -shm
// files the same mode as the database.
void create_private_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    throw SqliteError(fmt::format("cannot open {}: {}", file.string(), std::strerror(errno)));
  }
  const int rc = ::fchmod(fd, 0600);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) {
    throw SqliteError(
        fmt::format("cannot make {} private (mode 0600): {}", file.string(), std::strerror(saved)));
  }
}

}  // namespace

SqliteConnection SqliteConnection::open(const std::filesystem::path& file) {
  create_private_file(file);
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW,
      nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    throw SqliteError(fmt::format("cannot open {}: {}", file.string(), why));
  }
  SqliteConnection connection(db, file);
  sqlite3_busy_timeout(db, 5000);
  sqlite3_extended_result_codes(db, 1);
  {
    auto mode = connection.prepare("PRAGMA journal_mode=WAL");
    if (!mode.step() || mode.text(0) != "wal") {
      throw SqliteError(fmt::format("{} could not be switched to WAL mode", file.string()));
    }
  }
  connection.exec("PRAGMA foreign_keys=ON");
  connection.exec("PRAGMA synchronous=NORMAL");
  return connection;
}

SqliteConnection::SqliteConnection(SqliteConnection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), file_(std::move(other.file_)) {}

SqliteConnection::~SqliteConnection() {
  if (db_) sqlite3_close_v2(db_);
}

void SqliteConnection::fail(std::string_view what) const {
  throw SqliteError(
      fmt::format("{} ({}): {}", what, file_.filename().string(), sqlite3_errmsg(db_)));
}

void SqliteConnection::exec(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string why = message ? message : "unknown error";
    sqlite3_free(message);
    throw SqliteError(fmt::format("SQL failed on {}: {}", file_.filename().string(), why));
  }
}

SqliteStatement SqliteConnection::prepare(std::string_view sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr) !=
      SQLITE_OK) {
    fail("cannot prepare a statement");
  }
  return SqliteStatement(*this, statement);
}

int SqliteConnection::user_version() {
  auto s = prepare("PRAGMA user_version");
  if (!s.step()) fail("cannot read the schema version");
  return static_cast<int>(s.integer(0));
}

void SqliteConnection::set_user_version(int version) {
  exec(fmt::format("PRAGMA user_version={}", version));
}

std::int64_t SqliteConnection::changes() const {
  return sqlite3_changes64(db_);
}

void SqliteConnection::in_transaction(const std::function<void()>& body) {
  exec("BEGIN IMMEDIATE");
  try {
    body();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : connection_(other.connection_), statement_(std::exchange(other.statement_, nullptr)) {}

SqliteStatement::~SqliteStatement() {
  if (statement_) sqlite3_finalize(statement_);
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT,
                          SQLITE_UTF8) != SQLITE_OK) {
    connection_->fail("cannot bind a value");
  }
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t number) {
  if (sqlite3_bind_int64(statement_, index, number) != SQLITE_OK)
    connection_->fail("cannot bind a value");
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  if (sqlite3_bind_null(statement_, index) != SQLITE_OK) connection_->fail("cannot bind a value");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, const std::optional<std::int64_t>& number) {
  return number ? bind(index, *number) : bind_null(index);
}

SqliteStatement& SqliteStatement::bind_text_or_null(int index, std::string_view text) {
  return text.empty() ? bind_null(index) : bind(index, text);
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  connection_->fail("a statement failed");
}

void SqliteStatement::run() {
  while (step()) {
  }
}

void SqliteStatement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

std::string SqliteStatement::text(int column) const {
  const auto* p = sqlite3_column_text(statement_, column);
  const int n = sqlite3_column_bytes(statement_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
           : std::string();
}

std::int64_t SqliteStatement::integer(int column) const {
  return sqlite3_column_int64(statement_, column);
}

std::optional<std::int64_t> SqliteStatement::optional_integer(int column) const {
  if (is_null(column)) return std::nullopt;
  return integer(column);
}

bool SqliteStatement::is_null(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

void migrate(SqliteConnection& connection, std::span<const std::string_view> steps,
             std::string_view what) {
  const int stored = connection.user_version();
  const int newest = static_cast<int>(steps.size());
  if (stored > newest) {
    throw SqliteError(fmt::format(
        "{} has schema version {}, newer than version {} this errand knows; it was written by a "
        "newer errand, so run that version or move the file aside",
        what, stored, newest));
  }
  for (int version = stored; version < newest; ++version) {
    connection.in_transaction([&] {
      connection.exec(steps[static_cast<std::size_t>(version)]);
      connection.set_user_version(version + 1);
    });
  }
}

}  // namespace errand::sessions
