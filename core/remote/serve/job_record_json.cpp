#include "core/remote/serve/job_record_json.hpp"

#include <boost/json/parse.hpp>
#include <chrono>

namespace errand::remote {

namespace json = boost::json;

namespace {

std::int64_t record_millis(JobClock::time_point at) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
}

template <class T>
void put_if(json::object& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = *value;
}

void put_time(json::object& out, const char* key, const std::optional<JobClock::time_point>& at) {
  if (at) out[key] = record_millis(*at);
}

}  // namespace

json::object job_summary_json(const JobRecord& row) {
  json::object out;
  out["id"] = row.id;
  out["state"] = to_string(row.state);
  boost::system::error_code ec;
  auto argv = json::parse(row.argv_json, ec);
  out["argv"] = ec ? json::value(row.argv_json) : std::move(argv);
  out["workdir"] = row.workdir;
  out["admitted_at_ms"] = record_millis(row.admitted_at);
  put_time(out, "started_at_ms", row.started_at);
  put_time(out, "ended_at_ms", row.ended_at);
  put_if(out, "exit", row.exit_code);
  put_if(out, "signal", row.signal);
  return out;
}

json::object job_receipt_json(const JobRecord& row) {
  json::object out = job_summary_json(row);
  out["request_digest"] = row.request_digest;
  out["caller_uid"] = row.caller_uid;
  out["caller_name"] = row.caller_name;
  if (row.manifest_hash) out["manifest_hash"] = *row.manifest_hash;
  out["files"] = row.files;
  out["bytes"] = row.bytes;
  out["backend"] = row.backend;
  out["enforcement"] = row.enforcement;
  out["sandbox_id"] = row.sandbox_id;
  put_if(out, "runner_pid", row.runner_pid);
  out["limit_cause"] = row.limit_cause;
  out["detail"] = row.detail;
  put_if(out, "output_bytes", row.output_bytes);
  put_if(out, "last_seq", row.last_seq);
  put_if(out, "workspace_removed", row.workspace_removed);
  put_if(out, "sandbox_removed", row.sandbox_removed);
  out["cleanup_detail"] = row.cleanup_detail;
  return out;
}

}  // namespace errand::remote
