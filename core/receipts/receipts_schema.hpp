#pragma once

// receipts.db's schema, versioned through PRAGMA user_version. Each migration takes the file
// from one version to the next; opening applies whatever is missing, in one transaction.

#include <sqlite3.h>

#include <errand/sdk/result.hpp>

namespace errand::receipts {

inline constexpr int kSchemaVersion = 1;

// Brings an open database up to kSchemaVersion. Refuses a file from a newer errand rather than
// writing rows it would misread.
sdk::Result<void> migrate(sqlite3* db);

}  // namespace errand::receipts
