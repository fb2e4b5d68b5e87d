#pragma once

// A job as jobs.db records it: what was asked, by whom, where it stands, and (once it ended)
// its receipt. A row outlives the job; only garbage collection of old receipts removes it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace errand::remote {

// queued -> running -> ended; queued or running -> lost (the runner could not go on with it,
// e.g. its sandbox was gone after a restart).
enum class JobState { queued, running, ended, lost };

std::string_view to_string(JobState state) noexcept;
// The state a text names, or nothing for one this errand does not know.
std::optional<JobState> job_state_named(std::string_view text) noexcept;

using JobClock = std::chrono::system_clock;

struct JobRecord {
  std::string id;
  std::string request_digest;
  std::int64_t caller_uid = 0;
  std::string caller_name;
  std::string argv_json;
  std::string workdir;
  std::optional<std::string> manifest_hash;  // none for a job run without a snapshot
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  JobState state = JobState::queued;
  JobClock::time_point admitted_at;
  std::optional<JobClock::time_point> started_at;
  std::optional<JobClock::time_point> ended_at;
  std::string backend;
  std::string enforcement;  // the backend's report of what it enforced, in short
  std::string sandbox_id;   // the sandbox's name, so a restarted runner can find it
  std::optional<std::int64_t> runner_pid;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string limit_cause;  // the limit that ended the job, if one did
  std::string detail;
  std::optional<std::uint64_t> output_bytes;
  std::optional<std::uint64_t> last_seq;
  std::optional<bool> workspace_removed;  // none until cleanup is recorded
  std::optional<bool> sandbox_removed;
  std::string cleanup_detail;
};

}  // namespace errand::remote
