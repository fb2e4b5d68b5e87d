#include "core/storage/transaction.hpp"

#include "core/storage/connection.hpp"
#include "core/storage/failure.hpp"

namespace errand::storage {

Transaction::Transaction(Connection& connection) : connection_(connection) {
  connection_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!open_) return;
  // A destructor must not throw; a rollback that fails leaves SQLite to roll the transaction
  // back when the connection closes, which is the same outcome.
  try {
    connection_.exec("ROLLBACK");
  } catch (const Failure&) {
  }
}

void Transaction::commit() {
  connection_.exec("COMMIT");
  open_ = false;
}

}  // namespace errand::storage
