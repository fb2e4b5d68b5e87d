#include "core/storage/statement.hpp"

#include <sqlite3.h>

#include <utility>

#include "core/storage/connection.hpp"

namespace errand::storage {

Statement::Statement(Statement&& other) noexcept
    : connection_(other.connection_), statement_(std::exchange(other.statement_, nullptr)) {}

Statement::~Statement() {
  sqlite3_finalize(statement_);
}

Statement& Statement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT,
                          SQLITE_UTF8) != SQLITE_OK) {
    connection_->fail("cannot bind a value");
  }
  return *this;
}

Statement& Statement::bind(int index, std::int64_t number) {
  if (sqlite3_bind_int64(statement_, index, number) != SQLITE_OK)
    connection_->fail("cannot bind a value");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::int64_t>& number) {
  return number ? bind(index, *number) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(statement_, index) != SQLITE_OK) connection_->fail("cannot bind a value");
  return *this;
}

Statement& Statement::bind_text_or_null(int index, std::string_view text) {
  return text.empty() ? bind_null(index) : bind(index, text);
}

bool Statement::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  connection_->fail("a statement failed");
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(statement_, column);
  const int n = sqlite3_column_bytes(statement_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
           : std::string();
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(statement_, column);
}

std::optional<std::int64_t> Statement::optional_integer(int column) const {
  if (is_null(column)) return std::nullopt;
  return integer(column);
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

}  // namespace errand::storage
