#pragma once

// A thin C++ face over one SQLite connection for the daemon's own databases. Failures inside
// the store throw SqliteError; the public database classes catch it and return an Error, so no
// exception leaves the module.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace errand::sessions {

class SqliteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SqliteStatement;

class SqliteConnection {
 public:
  // Opens (creating when absent) a database file readable by its owner only, in WAL mode with
  // foreign keys enforced.
  static SqliteConnection open(const std::filesystem::path& file);

  SqliteConnection(SqliteConnection&& other) noexcept;
  SqliteConnection& operator=(SqliteConnection&&) = delete;
  SqliteConnection(const SqliteConnection&) = delete;
  ~SqliteConnection();

  void exec(std::string_view sql);
  SqliteStatement prepare(std::string_view sql);
  int user_version();
  void set_user_version(int version);
  std::int64_t changes() const;
  // Runs body inside BEGIN IMMEDIATE ... COMMIT; rolls back when body throws.
  void in_transaction(const std::function<void()>& body);
  const std::filesystem::path& file() const noexcept { return file_; }

 private:
  SqliteConnection(sqlite3* db, std::filesystem::path file) : db_(db), file_(std::move(file)) {}
  friend class SqliteStatement;
  [[noreturn]] void fail(std::string_view what) const;

  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  SqliteStatement(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters are numbered from 1, as in SQL.
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, std::int64_t number);
  SqliteStatement& bind_null(int index);
  SqliteStatement& bind(int index, const std::optional<std::int64_t>& number);
  SqliteStatement& bind_text_or_null(int index, std::string_view text);

  // True while a row is available.
  bool step();
  // Runs a statement that returns no rows.
  void run();
  void reset();

  // Columns are numbered from 0.
  std::string text(int column) const;
  std::int64_t integer(int column) const;
  std::optional<std::int64_t> optional_integer(int column) const;
  bool is_null(int column) const;

 private:
  friend class SqliteConnection;
  SqliteStatement(SqliteConnection& connection, sqlite3_stmt* statement)
      : connection_(&connection), statement_(statement) {}

  SqliteConnection* connection_;
  sqlite3_stmt* statement_ = nullptr;
};

// Brings a database from its stored PRAGMA user_version up to the newest version by running
// each later step in its own transaction. Step i (0-based) produces version i + 1. A database
// newer than the steps known here is refused rather than opened.
void migrate(SqliteConnection& connection, std::span<const std::string_view> steps,
             std::string_view what);

}  // namespace errand::sessions
