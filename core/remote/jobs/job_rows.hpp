#pragma once

// Reading a jobs.db row into a JobRecord: the one column list and its one reader, so that they
// cannot drift apart.

#include <errand/sdk/result.hpp>
#include <string_view>

#include "core/remote/jobs/job_record.hpp"
#include "core/storage/statement.hpp"

namespace errand::remote {

// "SELECT <every column, in read_job_row's order> FROM jobs"; a caller adds WHERE and ORDER BY.
extern const std::string_view kJobRowSelect;

// The record in the statement's current row (selected with kJobRowSelect); an error for a state
// this errand does not know.
sdk::Result<JobRecord> read_job_row(const storage::Statement& row);

}  // namespace errand::remote
