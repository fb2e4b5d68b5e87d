#pragma once

// A prepared statement with typed binds and reads. Failures throw storage::Failure (see
// connection.hpp for where they are caught).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3_stmt;

namespace errand::storage {

class Connection;

class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  // Parameters are numbered from 1, as in SQL.
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, std::int64_t number);
  Statement& bind(int index, const std::optional<std::int64_t>& number);
  Statement& bind_null(int index);
  // Empty text is stored as NULL, for columns where "none" is NULL.
  Statement& bind_text_or_null(int index, std::string_view text);

  // True while a row is available.
  bool step();
  // Runs a statement that returns no rows.
  void run();
  // Makes the statement ready to run again with fresh bindings.
  void reset();

  // Columns are numbered from 0. NULL reads as empty text or zero.
  std::string text(int column) const;
  std::int64_t integer(int column) const;
  std::optional<std::int64_t> optional_integer(int column) const;
  bool is_null(int column) const;

 private:
  friend class Connection;
  Statement(Connection& connection, sqlite3_stmt* statement)
      : connection_(&connection), statement_(statement) {}

  Connection* connection_;
  sqlite3_stmt* statement_;
};

}  // namespace errand::storage
