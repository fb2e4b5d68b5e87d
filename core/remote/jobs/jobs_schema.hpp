#pragma once

// jobs.db's schema, as the steps storage::migrate applies on open.

#include "core/storage/migrations.hpp"

namespace errand::remote {

inline constexpr int kJobsSchemaVersion = 1;

storage::Schema jobs_schema();

}  // namespace errand::remote
