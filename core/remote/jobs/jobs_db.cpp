#include "core/remote/jobs/jobs_db.hpp"

#include <fmt/format.h>

#include <initializer_list>

#include "core/remote/jobs/job_id.hpp"
#include "core/remote/jobs/job_rows.hpp"
#include "core/remote/jobs/jobs_schema.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/storage/database.hpp"

namespace errand::remote {
namespace {

using storage::Connection;

std::int64_t jobs_millis(JobClock::time_point at) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
}

// The job's state, or not_found naming it.
sdk::Result<JobState> job_state_in(Connection& db, std::string_view id) {
  auto select = db.prepare("SELECT state FROM jobs WHERE id = ?1");
  select.bind(1, id);
  if (!select.step())
    return sdk::make_error("there is no job " + std::string(id), sdk::Error::Kind::not_found);
  const auto text = select.text(0);
  const auto state = job_state_named(text);
  if (!state)
    return sdk::make_error("job " + std::string(id) + " has a state this errand does not know, \"" +
                           text + "\" (written by a newer errand?)");
  return *state;
}

// The job's state when it is one of `allowed`; otherwise an error naming the job, its state and
// what cannot be done.
sdk::Result<JobState> job_state_among(Connection& db, std::string_view id,
                                      std::initializer_list<JobState> allowed,
                                      std::string_view allowed_words, std::string_view action) {
  auto state = job_state_in(db, id);
  if (!state) return state;
  for (const auto ok : allowed)
    if (*state == ok) return state;
  return sdk::make_error(fmt::format("job {} is {}, not {}, so it cannot {}", id, to_string(*state),
                                     allowed_words, action));
}

std::size_t queued_before_or_at(Connection& db, std::int64_t admitted_at_ms, std::string_view id) {
  auto count = db.prepare(
      "SELECT count(*) FROM jobs WHERE state = 'queued' AND "
      "(admitted_at_ms < ?1 OR (admitted_at_ms = ?1 AND id <= ?2))");
  count.bind(1, admitted_at_ms).bind(2, id);
  count.step();
  return static_cast<std::size_t>(count.integer(0));
}

struct ActiveJobCounts {
  std::size_t running = 0;
  std::size_t queued = 0;
};

ActiveJobCounts active_job_counts(Connection& db) {
  auto select = db.prepare(
      "SELECT state, count(*) FROM jobs WHERE state IN ('queued', 'running') GROUP BY state");
  ActiveJobCounts counts;
  while (select.step())
    (select.text(0) == "running" ? counts.running : counts.queued) =
        static_cast<std::size_t>(select.integer(1));
  return counts;
}

sdk::Result<std::vector<JobRecord>> select_job_rows(storage::Statement& select) {
  std::vector<JobRecord> jobs;
  while (select.step()) {
    auto job = read_job_row(select);
    if (!job) return job.error();
    jobs.push_back(std::move(*job));
  }
  return jobs;
}

}  // namespace

sdk::Result<std::unique_ptr<JobsDb>> JobsDb::open(const std::filesystem::path& file) {
  auto db = storage::Database::open(file, jobs_schema());
  if (!db) return db.error();
  return std::unique_ptr<JobsDb>(new JobsDb(std::move(*db)));
}

JobsDb::JobsDb(std::unique_ptr<storage::Database> db) : db_(std::move(db)) {}
JobsDb::~JobsDb() = default;

sdk::Result<Admission> JobsDb::admit(const AdmitRequest& request, const JobBounds& bounds) {
  if (!is_job_id(request.id))
    return sdk::refusal(fmt::format(
        "\"{}\" is not a job id (26 characters of Crockford base 32, as errand makes them)",
        request.id.substr(0, 64)));
  if (!is_sha256_hex(request.digest))
    return sdk::make_error("job " + request.id +
                           ": its request digest is not a SHA-256 hex digest");
  return db_->access([&](Connection& db) -> sdk::Result<Admission> {
    storage::Transaction transaction(db);
    auto existing =
        db.prepare("SELECT request_digest, state, admitted_at_ms FROM jobs WHERE id = ?1");
    existing.bind(1, request.id);
    if (existing.step()) {
      if (existing.text(0) != request.digest)
        return sdk::refusal("job " + request.id + " was already admitted with a different request");
      const auto state = job_state_named(existing.text(1));
      if (!state)
        return sdk::make_error("job " + request.id + " has a state this errand does not know");
      Admission found{true, *state, 0};
      if (*state == JobState::queued)
        found.position = queued_before_or_at(db, existing.integer(2), request.id);
      return found;
    }
    const auto counts = active_job_counts(db);
    if (counts.running + counts.queued >= bounds.max_running + bounds.max_queued)
      return sdk::make_error(
          fmt::format("the runner's queue is full: {} running and {} waiting (runner.maxJobs {}, "
                      "runner.maxQueued {})",
                      counts.running, counts.queued, bounds.max_running, bounds.max_queued),
          sdk::Error::Kind::limit);
    const auto admitted_at_ms = jobs_millis(request.now);
    auto insert = db.prepare(
        "INSERT INTO jobs (id, request_digest, caller_uid, caller_name, argv_json, workdir, "
        "manifest_hash, files, bytes, state, admitted_at_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'queued', ?10)");
    insert.bind(1, request.id)
        .bind(2, request.digest)
        .bind(3, request.caller_uid)
        .bind(4, request.caller_name)
        .bind(5, request.argv_json)
        .bind(6, request.workdir);
    if (request.manifest_hash)
      insert.bind(7, *request.manifest_hash);
    else
      insert.bind_null(7);
    insert.bind(8, static_cast<std::int64_t>(request.files))
        .bind(9, static_cast<std::int64_t>(request.bytes))
        .bind(10, admitted_at_ms)
        .run();
    const auto position = queued_before_or_at(db, admitted_at_ms, request.id);
    transaction.commit();
    return Admission{false, JobState::queued, position};
  });
}

sdk::Result<std::optional<std::string>> JobsDb::next_to_start(std::size_t max_running) {
  return db_->access([&](Connection& db) -> sdk::Result<std::optional<std::string>> {
    if (active_job_counts(db).running >= max_running) return std::optional<std::string>();
    auto oldest = db.prepare(
        "SELECT id FROM jobs WHERE state = 'queued' ORDER BY admitted_at_ms, id LIMIT 1");
    if (!oldest.step()) return std::optional<std::string>();
    return std::optional<std::string>(oldest.text(0));
  });
}

sdk::Result<void> JobsDb::mark_running(std::string_view id, const JobStart& start) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    storage::Transaction transaction(db);
    auto state = job_state_among(db, id, {JobState::queued}, "queued", "start");
    if (!state) return state.error();
    db.prepare(
          "UPDATE jobs SET state = 'running', started_at_ms = ?2, backend = ?3, enforcement = ?4, "
          "sandbox_id = ?5, runner_pid = ?6 WHERE id = ?1")
        .bind(1, id)
        .bind(2, jobs_millis(start.now))
        .bind(3, start.backend)
        .bind(4, start.enforcement)
        .bind(5, start.sandbox_id)
        .bind(6, start.runner_pid)
        .run();
    transaction.commit();
    return {};
  });
}

sdk::Result<void> JobsDb::mark_ended(std::string_view id, const JobEnd& end) {
  if (end.exit_code && end.signal)
    return sdk::make_error("job " + std::string(id) +
                           ": an end has an exit code or a signal, not both");
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    storage::Transaction transaction(db);
    auto state = job_state_among(db, id, {JobState::running}, "running", "end");
    if (!state) return state.error();
    auto update = db.prepare(
        "UPDATE jobs SET state = 'ended', ended_at_ms = ?2, exit_code = ?3, signal = ?4, "
        "limit_cause = ?5, detail = ?6, output_bytes = ?7, last_seq = ?8 WHERE id = ?1");
    update.bind(1, id).bind(2, jobs_millis(end.now));
    update.bind(3, end.exit_code ? std::optional<std::int64_t>(*end.exit_code) : std::nullopt);
    update.bind(4, end.signal ? std::optional<std::int64_t>(*end.signal) : std::nullopt);
    update.bind_text_or_null(5, end.limit_cause)
        .bind(6, end.detail)
        .bind(7, static_cast<std::int64_t>(end.output_bytes))
        .bind(8, static_cast<std::int64_t>(end.last_seq))
        .run();
    transaction.commit();
    return {};
  });
}

sdk::Result<void> JobsDb::mark_lost(std::string_view id, std::string_view detail,
                                    JobClock::time_point now) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    storage::Transaction transaction(db);
    auto state = job_state_among(db, id, {JobState::queued, JobState::running}, "queued or running",
                                 "be lost");
    if (!state) return state.error();
    db.prepare("UPDATE jobs SET state = 'lost', ended_at_ms = ?2, detail = ?3 WHERE id = ?1")
        .bind(1, id)
        .bind(2, jobs_millis(now))
        .bind(3, detail)
        .run();
    transaction.commit();
    return {};
  });
}

sdk::Result<void> JobsDb::record_cleanup(std::string_view id, bool workspace_removed,
                                         bool sandbox_removed, std::string_view detail) {
  return db_->access([&](Connection& db) -> sdk::Result<void> {
    storage::Transaction transaction(db);
    auto state = job_state_among(db, id, {JobState::ended, JobState::lost}, "ended or lost",
                                 "be cleaned up");
    if (!state) return state.error();
    db.prepare(
          "UPDATE jobs SET workspace_removed = ?2, sandbox_removed = ?3, cleanup_detail = ?4 "
          "WHERE id = ?1")
        .bind(1, id)
        .bind(2, std::int64_t{workspace_removed})
        .bind(3, std::int64_t{sandbox_removed})
        .bind_text_or_null(4, detail)
        .run();
    transaction.commit();
    return {};
  });
}

sdk::Result<std::optional<std::size_t>> JobsDb::queue_position(std::string_view id) {
  return db_->access([&](Connection& db) -> sdk::Result<std::optional<std::size_t>> {
    auto select = db.prepare("SELECT state, admitted_at_ms FROM jobs WHERE id = ?1");
    select.bind(1, id);
    if (!select.step())
      return sdk::make_error("there is no job " + std::string(id), sdk::Error::Kind::not_found);
    if (select.text(0) != "queued") return std::optional<std::size_t>();
    return std::optional<std::size_t>(queued_before_or_at(db, select.integer(1), id));
  });
}

sdk::Result<JobRecord> JobsDb::get(std::string_view id) {
  return db_->access([&](Connection& db) -> sdk::Result<JobRecord> {
    auto select = db.prepare(std::string(kJobRowSelect) + " WHERE id = ?1");
    select.bind(1, id);
    if (!select.step())
      return sdk::make_error("there is no job " + std::string(id), sdk::Error::Kind::not_found);
    return read_job_row(select);
  });
}

sdk::Result<std::vector<JobRecord>> JobsDb::list_for_caller(std::int64_t caller_uid,
                                                            bool active_only, std::size_t limit) {
  return db_->access([&](Connection& db) -> sdk::Result<std::vector<JobRecord>> {
    auto select = db.prepare(std::string(kJobRowSelect) +
                             " WHERE caller_uid = ?1 AND (?2 = 0 OR state IN ('queued', "
                             "'running')) ORDER BY admitted_at_ms DESC, id DESC LIMIT ?3");
    select.bind(1, caller_uid)
        .bind(2, std::int64_t{active_only})
        .bind(3, static_cast<std::int64_t>(limit));
    return select_job_rows(select);
  });
}

sdk::Result<std::vector<JobRecord>> JobsDb::running() {
  return db_->access([&](Connection& db) -> sdk::Result<std::vector<JobRecord>> {
    auto select = db.prepare(std::string(kJobRowSelect) +
                             " WHERE state = 'running' ORDER BY admitted_at_ms, id");
    return select_job_rows(select);
  });
}

sdk::Result<std::size_t> JobsDb::remove_ended_before(JobClock::time_point before) {
  return db_->access([&](Connection& db) -> sdk::Result<std::size_t> {
    db.prepare("DELETE FROM jobs WHERE state IN ('ended', 'lost') AND ended_at_ms < ?1")
        .bind(1, jobs_millis(before))
        .run();
    return static_cast<std::size_t>(db.changes());
  });
}

}  // namespace errand::remote
