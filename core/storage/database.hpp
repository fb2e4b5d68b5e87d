#pragma once

// One of the daemon's SQLite files: a connection, migrated to its schema on open, shared by the
// threads that use it one at a time. All access goes through access(), which holds the lock and
// turns a storage::Failure raised by the body into the sdk::Error it returns.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "core/storage/connection.hpp"
#include "core/storage/failure.hpp"
#include "core/storage/migrations.hpp"
#include "core/storage/statement.hpp"
#include "core/storage/transaction.hpp"

namespace errand::storage {

class Database {
 public:
  // Opens (see Connection::open) and migrates the file to the schema.
  static sdk::Result<std::unique_ptr<Database>> open(const std::filesystem::path& file,
                                                     const Schema& schema);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs body(Connection&) under the lock. body returns an sdk::Result; a Failure it raises
  // becomes an Error naming the file.
  template <class Body>
  auto access(Body&& body) -> std::invoke_result_t<Body, Connection&> {
    std::lock_guard lock(mutex_);
    try {
      return std::forward<Body>(body)(*connection_);
    } catch (const Failure& e) {
      return sdk::make_error(name_ + ": " + e.what());
    }
  }

  const std::filesystem::path& file() const noexcept { return connection_->file(); }

 private:
  Database(std::unique_ptr<Connection> connection, std::string name)
      : connection_(std::move(connection)), name_(std::move(name)) {}

  std::mutex mutex_;
  std::unique_ptr<Connection> connection_;
  std::string name_;
};

}  // namespace errand::storage
