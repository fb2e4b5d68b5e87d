#pragma once

// A jobs.db row as the ps and show answers carry it.

#include <boost/json/object.hpp>

#include "core/remote/jobs/job_record.hpp"

namespace errand::remote {

// The listing's line: id, state, argv, workdir, times (ms since the epoch) and how it ended.
boost::json::object job_summary_json(const JobRecord& row);
// Everything jobs.db holds of the job: its receipt.
boost::json::object job_receipt_json(const JobRecord& row);

}  // namespace errand::remote
