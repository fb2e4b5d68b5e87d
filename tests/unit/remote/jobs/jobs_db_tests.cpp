#include "core/remote/jobs/job_id.hpp"
#include "core/remote/jobs/jobs_db.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <filesystem>
#include <latch>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using errand::remote::Admission;
using errand::remote::AdmitRequest;
using errand::remote::JobBounds;
using errand::remote::JobClock;
using errand::remote::JobEnd;
using errand::remote::JobIdTime;
using errand::remote::JobsDb;
using errand::remote::JobStart;
using errand::remote::JobState;
using errand::remote::make_job_id;
using errand::remote::sha256_hex;
using errand::sdk::Error;
using errand::test::ok;
using errand::test::TempDir;

namespace {

constexpr JobBounds kRoomy{4, 100};

JobClock::time_point at_ms(std::int64_t ms) {
  return JobClock::time_point(std::chrono::milliseconds(ms));
}

std::string id_at(std::int64_t ms) {
  return make_job_id(JobIdTime(std::chrono::milliseconds(ms)));
}

std::unique_ptr<JobsDb> open_jobs(const std::filesystem::path& file) {
  auto db = JobsDb::open(file);
  REQUIRE(ok(db));
  return std::move(*db);
}

// A request for a job made at `ms`; `what` stands for everything the digest covers.
AdmitRequest request_at(std::int64_t ms, std::string_view what = "make test",
                        std::int64_t uid = 1000) {
  AdmitRequest r;
  r.id = id_at(ms);
  r.digest = sha256_hex(what);
  r.caller_uid = uid;
  r.caller_name = "dev";
  r.argv_json = R"(["make","test"])";
  r.workdir = "src";
  r.manifest_hash = sha256_hex("the manifest");
  r.files = 12;
  r.bytes = 3456;
  r.now = at_ms(ms);
  return r;
}

Admission admit_ok(JobsDb& db, const AdmitRequest& r, JobBounds bounds = kRoomy) {
  auto admitted = db.admit(r, bounds);
  REQUIRE(ok(admitted));
  return *admitted;
}

JobStart start_at(std::int64_t ms) {
  return {"bailey", "landlock+seccomp, no network", "errand-job-1", 4242, at_ms(ms)};
}

JobEnd exit_at(std::int64_t ms, int code) {
  JobEnd end;
  end.exit_code = code;
  end.detail = "exited";
  end.output_bytes = 77;
  end.last_seq = 5;
  end.now = at_ms(ms);
  return end;
}

}  // namespace

TEST_CASE("a new job is admitted as queued and recorded whole", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto first = request_at(1'000);
  auto no_snapshot = request_at(2'000, "ls");
  no_snapshot.manifest_hash.reset();

  const auto a = admit_ok(*db, first);
  CHECK_FALSE(a.existing);
  CHECK(a.state == JobState::queued);
  CHECK(a.position == 1);
  CHECK(admit_ok(*db, no_snapshot).position == 2);

  auto job = db->get(first.id);
  REQUIRE(ok(job));
  CHECK(job->id == first.id);
  CHECK(job->request_digest == first.digest);
  CHECK(job->caller_uid == 1000);
  CHECK(job->caller_name == "dev");
  CHECK(job->argv_json == first.argv_json);
  CHECK(job->workdir == "src");
  CHECK(job->manifest_hash == first.manifest_hash);
  CHECK(job->files == 12);
  CHECK(job->bytes == 3456);
  CHECK(job->state == JobState::queued);
  CHECK(job->admitted_at == at_ms(1'000));
  CHECK_FALSE(job->started_at);
  CHECK_FALSE(job->ended_at);
  CHECK_FALSE(job->exit_code);
  CHECK_FALSE(job->workspace_removed);
  CHECK_FALSE(db->get(no_snapshot.id).value().manifest_hash);
}

TEST_CASE("admitting the same job again finds it", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto earlier = request_at(500, "earlier");
  const auto r = request_at(1'000);
  admit_ok(*db, earlier);
  admit_ok(*db, r);

  const auto again = admit_ok(*db, r);
  CHECK(again.existing);
  CHECK(again.state == JobState::queued);
  CHECK(again.position == 2);

  REQUIRE(ok(db->mark_running(earlier.id, start_at(1'100))));
  REQUIRE(ok(db->mark_running(r.id, start_at(1'200))));
  const auto running = admit_ok(*db, r);
  CHECK(running.existing);
  CHECK(running.state == JobState::running);
  CHECK(running.position == 0);
}

TEST_CASE("an id admitted with a different request is refused", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto r = request_at(1'000, "make test");
  admit_ok(*db, r);
  auto other = r;
  other.digest = sha256_hex("rm -rf build");
  auto refused = db->admit(other, kRoomy);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().kind == Error::Kind::refused);
  CHECK(refused.error().message ==
        "job " + r.id + " was already admitted with a different request");
  CHECK(db->get(r.id).value().request_digest == r.digest);
}

TEST_CASE("a malformed job id is refused and nothing recorded", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  for (const std::string bad : {"", "not-a-ulid", "01ARZ3NDEKTSV4RRFFQ69G5FA",
                                "81ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAU"}) {
    auto r = request_at(1'000);
    r.id = bad;
    auto refused = db->admit(r, kRoomy);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().kind == Error::Kind::refused);
    CHECK_THAT(refused.error().message, ContainsSubstring("is not a job id"));
  }
  auto listed = db->list_for_caller(1000, false, 10);
  REQUIRE(ok(listed));
  CHECK(listed->empty());
}

TEST_CASE("a full queue refuses a new job and says how full", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const JobBounds bounds{1, 2};
  const auto a = request_at(1'000, "a");
  admit_ok(*db, a, bounds);
  admit_ok(*db, request_at(1'001, "b"), bounds);
  admit_ok(*db, request_at(1'002, "c"), bounds);

  auto full = db->admit(request_at(1'003, "d"), bounds);
  REQUIRE_FALSE(full.has_value());
  CHECK(full.error().kind == Error::Kind::limit);
  CHECK(full.error().message ==
        "the runner's queue is full: 0 running and 3 waiting (runner.maxJobs 1, "
        "runner.maxQueued 2)");

  REQUIRE(ok(db->mark_running(a.id, start_at(1'010))));
  full = db->admit(request_at(1'020, "e"), bounds);
  REQUIRE_FALSE(full.has_value());
  CHECK(full.error().message ==
        "the runner's queue is full: 1 running and 2 waiting (runner.maxJobs 1, "
        "runner.maxQueued 2)");

  // A retried admission is an answer about a job already counted, not a new one.
  CHECK(admit_ok(*db, a, bounds).existing);

  REQUIRE(ok(db->mark_ended(a.id, exit_at(1'030, 0))));
  CHECK_FALSE(admit_ok(*db, request_at(1'040, "f"), bounds).existing);
}

TEST_CASE("jobs start in admission order, as many as may run", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto first = request_at(1'000, "1");
  const auto second = request_at(2'000, "2");
  const auto third = request_at(3'000, "3");
  // Admitted out of order; the time of admission decides.
  admit_ok(*db, third);
  admit_ok(*db, first);
  admit_ok(*db, second);

  CHECK(db->queue_position(first.id).value() == std::optional<std::size_t>(1));
  CHECK(db->queue_position(second.id).value() == std::optional<std::size_t>(2));
  CHECK(db->queue_position(third.id).value() == std::optional<std::size_t>(3));
  CHECK(db->next_to_start(1).value() == std::optional<std::string>(first.id));

  REQUIRE(ok(db->mark_running(first.id, start_at(3'500))));
  CHECK(db->next_to_start(1).value() == std::nullopt);
  CHECK(db->next_to_start(2).value() == std::optional<std::string>(second.id));
  CHECK(db->queue_position(first.id).value() == std::nullopt);
  CHECK(db->queue_position(second.id).value() == std::optional<std::size_t>(1));
  CHECK(db->queue_position(third.id).value() == std::optional<std::size_t>(2));

  auto unknown = db->queue_position(id_at(9));
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().kind == Error::Kind::not_found);
}

TEST_CASE("a job runs, ends with its receipt, and records its cleanup", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto r = request_at(1'000);
  admit_ok(*db, r);
  REQUIRE(ok(db->mark_running(r.id, start_at(1'500))));

  auto running = db->running();
  REQUIRE(ok(running));
  REQUIRE(running->size() == 1);
  CHECK(running->front().id == r.id);
  CHECK(running->front().state == JobState::running);
  CHECK(running->front().started_at == at_ms(1'500));
  CHECK(running->front().backend == "bailey");
  CHECK(running->front().enforcement == "landlock+seccomp, no network");
  CHECK(running->front().sandbox_id == "errand-job-1");
  CHECK(running->front().runner_pid == 4242);

  JobEnd end;
  end.signal = 9;
  end.limit_cause = "memory";
  end.detail = "killed at its memory limit (2 GiB)";
  end.output_bytes = 1234;
  end.last_seq = 17;
  end.now = at_ms(9'000);
  REQUIRE(ok(db->mark_ended(r.id, end)));
  REQUIRE(ok(db->record_cleanup(r.id, true, false, "the sandbox was busy")));

  auto job = db->get(r.id);
  REQUIRE(ok(job));
  CHECK(job->state == JobState::ended);
  CHECK(job->ended_at == at_ms(9'000));
  CHECK_FALSE(job->exit_code);
  CHECK(job->signal == 9);
  CHECK(job->limit_cause == "memory");
  CHECK(job->detail == "killed at its memory limit (2 GiB)");
  CHECK(job->output_bytes == 1234u);
  CHECK(job->last_seq == 17u);
  CHECK(job->workspace_removed == true);
  CHECK(job->sandbox_removed == false);
  CHECK(job->cleanup_detail == "the sandbox was busy");
  CHECK(db->running().value().empty());

  // A retried cleanup records its newer outcome.
  REQUIRE(ok(db->record_cleanup(r.id, true, true, "")));
  CHECK(db->get(r.id).value().sandbox_removed == true);
}

TEST_CASE("a change of state that does not follow from the job's state is refused",
          "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto r = request_at(1'000);
  admit_ok(*db, r);

  auto early_end = db->mark_ended(r.id, exit_at(1'100, 0));
  REQUIRE_FALSE(early_end.has_value());
  CHECK(early_end.error().message == "job " + r.id + " is queued, not running, so it cannot end");
  auto early_cleanup = db->record_cleanup(r.id, true, true, "");
  REQUIRE_FALSE(early_cleanup.has_value());
  CHECK_THAT(early_cleanup.error().message, ContainsSubstring("is queued, not ended or lost"));

  REQUIRE(ok(db->mark_running(r.id, start_at(1'200))));
  auto twice = db->mark_running(r.id, start_at(1'300));
  REQUIRE_FALSE(twice.has_value());
  CHECK(twice.error().message == "job " + r.id + " is running, not queued, so it cannot start");

  auto both = exit_at(1'400, 1);
  both.signal = 15;
  CHECK_FALSE(db->mark_ended(r.id, both).has_value());
  CHECK(db->get(r.id).value().state == JobState::running);

  REQUIRE(ok(db->mark_ended(r.id, exit_at(1'500, 3))));
  auto ended_again = db->mark_ended(r.id, exit_at(1'600, 4));
  REQUIRE_FALSE(ended_again.has_value());
  CHECK_THAT(ended_again.error().message, ContainsSubstring("is ended, not running"));
  auto lost_after_end = db->mark_lost(r.id, "gone", at_ms(1'700));
  REQUIRE_FALSE(lost_after_end.has_value());
  CHECK_THAT(lost_after_end.error().message, ContainsSubstring("is ended, not queued or running"));
  CHECK(db->get(r.id).value().exit_code == 3);

  auto unknown = db->mark_running(id_at(5), start_at(1));
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().kind == Error::Kind::not_found);
}

TEST_CASE("a queued or running job can be marked lost", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto queued = request_at(1'000, "q");
  const auto running = request_at(2'000, "r");
  admit_ok(*db, queued);
  admit_ok(*db, running);
  REQUIRE(ok(db->mark_running(running.id, start_at(2'100))));

  REQUIRE(ok(db->mark_lost(queued.id, "its workspace was gone after a restart", at_ms(3'000))));
  REQUIRE(ok(db->mark_lost(running.id, "its sandbox was gone after a restart", at_ms(3'001))));
  auto job = db->get(running.id);
  REQUIRE(ok(job));
  CHECK(job->state == JobState::lost);
  CHECK(job->ended_at == at_ms(3'001));
  CHECK(job->detail == "its sandbox was gone after a restart");
  CHECK(db->get(queued.id).value().state == JobState::lost);
  CHECK(db->next_to_start(4).value() == std::nullopt);
  REQUIRE(ok(db->record_cleanup(running.id, true, true, "")));
}

TEST_CASE("a caller's jobs are listed newest first", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto old_one = request_at(1'000, "old");
  const auto middle = request_at(2'000, "middle");
  const auto newest = request_at(3'000, "newest");
  const auto someone_else = request_at(4'000, "theirs", 1001);
  for (const auto& r : {old_one, middle, newest, someone_else}) admit_ok(*db, r);
  REQUIRE(ok(db->mark_running(old_one.id, start_at(3'100))));
  REQUIRE(ok(db->mark_ended(old_one.id, exit_at(3'200, 0))));

  auto all = db->list_for_caller(1000, false, 10);
  REQUIRE(ok(all));
  REQUIRE(all->size() == 3);
  CHECK((*all)[0].id == newest.id);
  CHECK((*all)[1].id == middle.id);
  CHECK((*all)[2].id == old_one.id);

  auto active = db->list_for_caller(1000, true, 10);
  REQUIRE(ok(active));
  REQUIRE(active->size() == 2);
  CHECK((*active)[1].id == middle.id);

  auto limited = db->list_for_caller(1000, false, 1);
  REQUIRE(ok(limited));
  REQUIRE(limited->size() == 1);
  CHECK(limited->front().id == newest.id);
}

TEST_CASE("only receipts that ended before the cut are removed", "[remote][jobs]") {
  TempDir dir;
  auto db = open_jobs(dir / "jobs.db");
  const auto ended_early = request_at(1'000, "1");
  const auto lost_early = request_at(1'001, "2");
  const auto ended_late = request_at(1'002, "3");
  const auto still_queued = request_at(1'003, "4");
  for (const auto& r : {ended_early, lost_early, ended_late, still_queued}) admit_ok(*db, r);
  for (const auto& r : {ended_early, ended_late})
    REQUIRE(ok(db->mark_running(r.id, start_at(1'100))));
  REQUIRE(ok(db->mark_ended(ended_early.id, exit_at(2'000, 0))));
  REQUIRE(ok(db->mark_lost(lost_early.id, "gone", at_ms(2'500))));
  REQUIRE(ok(db->mark_ended(ended_late.id, exit_at(9'000, 0))));

  auto removed = db->remove_ended_before(at_ms(5'000));
  REQUIRE(ok(removed));
  CHECK(*removed == 2);
  CHECK(db->get(ended_early.id).error().kind == Error::Kind::not_found);
  CHECK_FALSE(db->get(lost_early.id).has_value());
  CHECK(ok(db->get(ended_late.id)));
  CHECK(ok(db->get(still_queued.id)));
}

TEST_CASE("jobs survive the runner closing and reopening jobs.db", "[remote][jobs]") {
  TempDir dir;
  const auto r = request_at(1'000);
  {
    auto db = open_jobs(dir / "jobs.db");
    admit_ok(*db, r);
    REQUIRE(ok(db->mark_running(r.id, start_at(1'100))));
  }
  auto db = open_jobs(dir / "jobs.db");
  auto running = db->running();
  REQUIRE(ok(running));
  REQUIRE(running->size() == 1);
  CHECK(running->front().id == r.id);
  CHECK(running->front().sandbox_id == "errand-job-1");
  const auto again = admit_ok(*db, r);
  CHECK(again.existing);
  CHECK(again.state == JobState::running);
}

TEST_CASE("two handles admitting one id at once admit it once", "[remote][jobs]") {
  TempDir dir;
  auto first = open_jobs(dir / "jobs.db");
  auto second = open_jobs(dir / "jobs.db");
  constexpr int kRounds = 25;

  std::vector<AdmitRequest> requests;
  for (int i = 0; i < kRounds; ++i) requests.push_back(request_at(1'000 + i, std::to_string(i)));
  std::vector<Admission> from_first(kRounds);
  std::vector<Admission> from_second(kRounds);
  std::vector<std::string> failures;
  std::mutex failures_mutex;

  auto admit_all = [&](JobsDb& db, std::vector<Admission>& out, std::latch& go) {
    go.arrive_and_wait();
    for (int i = 0; i < kRounds; ++i) {
      auto admitted = db.admit(requests[static_cast<std::size_t>(i)], kRoomy);
      if (admitted) {
        out[static_cast<std::size_t>(i)] = *admitted;
      } else {
        std::lock_guard lock(failures_mutex);
        failures.push_back(admitted.error().message);
      }
    }
  };
  std::latch go(2);
  std::thread a([&] { admit_all(*first, from_first, go); });
  std::thread b([&] { admit_all(*second, from_second, go); });
  a.join();
  b.join();

  CHECK(failures.empty());
  int new_admissions = 0;
  for (int i = 0; i < kRounds; ++i) {
    const auto& x = from_first[static_cast<std::size_t>(i)];
    const auto& y = from_second[static_cast<std::size_t>(i)];
    CHECK(x.existing != y.existing);
    new_admissions += !x.existing + !y.existing;
  }
  CHECK(new_admissions == kRounds);
  auto listed = first->list_for_caller(1000, false, 1000);
  REQUIRE(ok(listed));
  CHECK(listed->size() == kRounds);
}
