#pragma once

// One SQLite connection to one of the daemon's database files. Its operations throw
// storage::Failure; a caller reaches a connection only inside Database::access, which turns a
// failure into an sdk::Error.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <string_view>

struct sqlite3;

namespace errand::storage {

class Statement;

class Connection {
 public:
  // Creates the file private (0600) when absent, refuses a symbolic link, and opens it in WAL
  // mode with foreign keys enforced and a five-second wait for another writer's lock.
  static sdk::Result<std::unique_ptr<Connection>> open(const std::filesystem::path& file);

  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs one or more statements that return no rows.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);
  // Rows the last INSERT, UPDATE or DELETE changed.
  std::int64_t changes() const;
  // The schema version kept in the file's header (PRAGMA user_version).
  int user_version();
  void set_user_version(int version);

  const std::filesystem::path& file() const noexcept { return file_; }
  // Throws a Failure naming what was attempted and SQLite's reason.
  [[noreturn]] void fail(std::string_view what) const;

 private:
  Connection(sqlite3* db, std::filesystem::path file) : db_(db), file_(std::move(file)) {}
  void configure();
  friend class Statement;

  sqlite3* db_;
  std::filesystem::path file_;
};

}  // namespace errand::storage
