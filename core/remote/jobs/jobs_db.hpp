#pragma once

// jobs.db, the runner's table of jobs: one row per job, keyed by the id its caller made. A job
// is admitted at most once (a retried admission with the same request finds its row), waits in
// the queue in admission order, runs, and ends with its receipt in the same row; the row stays
// for `errand jobs` and for a restarted runner to reconcile what it was running.
//
// Admission and each change of state are single transactions taken with BEGIN IMMEDIATE, so
// two runner threads or processes sharing the file cannot both admit one id, or move one job
// twice.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/remote/jobs/job_record.hpp"

namespace errand::storage {
class Database;
}

namespace errand::remote {

struct AdmitRequest {
  std::string id;  // the caller's ULID (is_job_id)
  // SHA-256 hex of everything the request asks for (argv, env, workdir, manifest hash): a
  // retried admission carries the same one; a different request under the same id does not.
  std::string digest;
  std::int64_t caller_uid = 0;
  std::string caller_name;
  std::string argv_json;
  std::string workdir;
  std::optional<std::string> manifest_hash;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  JobClock::time_point now;
};

// runner.maxJobs and runner.maxQueued.
struct JobBounds {
  std::size_t max_running = 1;
  std::size_t max_queued = 8;
};

struct Admission {
  bool existing = false;  // the id was admitted before, with this same request
  JobState state = JobState::queued;
  std::size_t position = 0;  // 1-based place in the queue while queued, else 0
};

struct JobStart {
  std::string backend;
  std::string enforcement;
  std::string sandbox_id;
  std::int64_t runner_pid = 0;
  JobClock::time_point now;
};

// A job's end: its exit code, or the signal that killed it (at most one of the two).
struct JobEnd {
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string limit_cause;  // empty unless a limit ended it
  std::string detail;
  std::uint64_t output_bytes = 0;
  std::uint64_t last_seq = 0;
  JobClock::time_point now;
};

class JobsDb {
 public:
  static sdk::Result<std::unique_ptr<JobsDb>> open(const std::filesystem::path& file);
  ~JobsDb();
  JobsDb(const JobsDb&) = delete;
  JobsDb& operator=(const JobsDb&) = delete;

  // Admits the job as queued, or finds it admitted before. Refused: a malformed id, an id
  // admitted with a different request, and (kind limit) a full queue.
  sdk::Result<Admission> admit(const AdmitRequest& request, const JobBounds& bounds);

  // The oldest queued job's id, when fewer than max_running jobs are running.
  sdk::Result<std::optional<std::string>> next_to_start(std::size_t max_running);

  // queued -> running.
  sdk::Result<void> mark_running(std::string_view id, const JobStart& start);
  // running -> ended, with the receipt.
  sdk::Result<void> mark_ended(std::string_view id, const JobEnd& end);
  // queued or running -> lost.
  sdk::Result<void> mark_lost(std::string_view id, std::string_view detail,
                              JobClock::time_point now);
  // What tearing an ended or lost job down achieved; may be recorded again after a retry.
  sdk::Result<void> record_cleanup(std::string_view id, bool workspace_removed,
                                   bool sandbox_removed, std::string_view detail);

  // The job's 1-based place in the queue, or nothing when it is not queued.
  sdk::Result<std::optional<std::size_t>> queue_position(std::string_view id);
  // Kind not_found for an id with no row.
  sdk::Result<JobRecord> get(std::string_view id);
  // The caller's jobs, newest first; only queued and running ones when active_only.
  sdk::Result<std::vector<JobRecord>> list_for_caller(std::int64_t caller_uid, bool active_only,
                                                      std::size_t limit);
  // The jobs recorded as running, oldest first: what a restarted runner reconciles.
  sdk::Result<std::vector<JobRecord>> running();
  // Removes ended and lost jobs that ended before `before`; returns how many.
  sdk::Result<std::size_t> remove_ended_before(JobClock::time_point before);

 private:
  explicit JobsDb(std::unique_ptr<storage::Database> db);

  std::unique_ptr<storage::Database> db_;
};

}  // namespace errand::remote
