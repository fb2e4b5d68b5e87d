#pragma once

// receipts.db's schema, as the steps storage::migrate applies on open.

#include "core/storage/migrations.hpp"

namespace errand::receipts {

inline constexpr int kSchemaVersion = 1;

storage::Schema schema();

}  // namespace errand::receipts
