#include "core/remote/jobs/job_rows.hpp"

#include <chrono>

namespace errand::remote {
namespace {

JobClock::time_point job_row_time(std::int64_t millis) {
  return JobClock::time_point(std::chrono::milliseconds(millis));
}

std::optional<JobClock::time_point> job_row_optional_time(const storage::Statement& row,
                                                          int column) {
  if (row.is_null(column)) return std::nullopt;
  return job_row_time(row.integer(column));
}

std::optional<std::uint64_t> job_row_optional_count(const storage::Statement& row, int column) {
  if (row.is_null(column)) return std::nullopt;
  return static_cast<std::uint64_t>(row.integer(column));
}

std::optional<int> job_row_optional_int(const storage::Statement& row, int column) {
  if (row.is_null(column)) return std::nullopt;
  return static_cast<int>(row.integer(column));
}

std::optional<bool> job_row_optional_flag(const storage::Statement& row, int column) {
  if (row.is_null(column)) return std::nullopt;
  return row.integer(column) != 0;
}

}  // namespace

const std::string_view kJobRowSelect =
    "SELECT id, request_digest, caller_uid, caller_name, argv_json, workdir, manifest_hash, "
    "files, bytes, state, admitted_at_ms, started_at_ms, ended_at_ms, backend, enforcement, "
    "sandbox_id, runner_pid, exit_code, signal, limit_cause, detail, output_bytes, last_seq, "
    "workspace_removed, sandbox_removed, cleanup_detail FROM jobs";

sdk::Result<JobRecord> read_job_row(const storage::Statement& row) {
  JobRecord job;
  job.id = row.text(0);
  job.request_digest = row.text(1);
  job.caller_uid = row.integer(2);
  job.caller_name = row.text(3);
  job.argv_json = row.text(4);
  job.workdir = row.text(5);
  if (!row.is_null(6)) job.manifest_hash = row.text(6);
  job.files = static_cast<std::uint64_t>(row.integer(7));
  job.bytes = static_cast<std::uint64_t>(row.integer(8));
  const auto state_text = row.text(9);
  const auto state = job_state_named(state_text);
  if (!state)
    return sdk::make_error("job " + job.id + " has a state this errand does not know, \"" +
                           state_text + "\" (written by a newer errand?)");
  job.state = *state;
  job.admitted_at = job_row_time(row.integer(10));
  job.started_at = job_row_optional_time(row, 11);
  job.ended_at = job_row_optional_time(row, 12);
  job.backend = row.text(13);
  job.enforcement = row.text(14);
  job.sandbox_id = row.text(15);
  job.runner_pid = row.optional_integer(16);
  job.exit_code = job_row_optional_int(row, 17);
  job.signal = job_row_optional_int(row, 18);
  job.limit_cause = row.text(19);
  job.detail = row.text(20);
  job.output_bytes = job_row_optional_count(row, 21);
  job.last_seq = job_row_optional_count(row, 22);
  job.workspace_removed = job_row_optional_flag(row, 23);
  job.sandbox_removed = job_row_optional_flag(row, 24);
  job.cleanup_detail = row.text(25);
  return job;
}

}  // namespace errand::remote
