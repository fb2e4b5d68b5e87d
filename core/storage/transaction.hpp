#pragma once

// BEGIN IMMEDIATE on construction (taking the write lock at once, so a transaction never fails
// half-way on a lock it could not upgrade); ROLLBACK on destruction unless commit() ran.

#include <utility>

namespace errand::storage {

class Connection;

class Transaction {
 public:
  explicit Transaction(Connection& connection);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  void commit();

 private:
  Connection& connection_;
  bool open_ = true;
};

// Runs body in one transaction, committed when body returns normally, rolled back when it
// throws.
template <class Body>
void in_transaction(Connection& connection, Body&& body) {
  Transaction transaction(connection);
  std::forward<Body>(body)();
  transaction.commit();
}

}  // namespace errand::storage
