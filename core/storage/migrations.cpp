#include "core/storage/migrations.hpp"

#include <fmt/format.h>

#include "core/storage/connection.hpp"
#include "core/storage/failure.hpp"
#include "core/storage/transaction.hpp"

namespace errand::storage {

void migrate(Connection& connection, const Schema& schema) {
  while (true) {
    // The version is read inside the write transaction, so two processes opening the same file
    // at once cannot both apply a step.
    Transaction transaction(connection);
    const int stored = connection.user_version();
    if (stored > schema.version()) {
      throw Failure(fmt::format(
          "{} has schema version {}, newer than version {} that this errand knows; it was "
          "written by a newer errand, so run that version or move the file aside",
          schema.name, stored, schema.version()));
    }
    if (stored == schema.version()) return;
    try {
      connection.exec(schema.steps[static_cast<std::size_t>(stored)]);
    } catch (const Failure& e) {
      throw Failure(fmt::format("{} could not be migrated from schema version {} to {}: {}",
                                schema.name, stored, stored + 1, e.what()));
    }
    connection.set_user_version(stored + 1);
    transaction.commit();
  }
}

}  // namespace errand::storage
