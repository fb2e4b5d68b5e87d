#include "tests/live/remote/job_harness.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_from.hpp>
#include <catch2/catch_test_macros.hpp>
#include <exception>

#include "core/remote/jobs/job_id.hpp"
#include "core/remote/jobs/job_log.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/test_paths.hpp"

namespace remote_live {

namespace asio = boost::asio;
namespace json = boost::json;
namespace remote = errand::remote;
using errand::test::ok;

JobHarness::JobHarness(fs::path root) : root_(std::move(root)) {
  bailey_live::require_full_host();
  state_dir_ = root_.path() / "state";
  fs::create_directories(state_dir_);
  // No network: a job under the broker would need one, which is the runner's to run.
  config_ = json::object{
      {"projectRoot", (root_.path() / "projects").string()},
      {"stateDir", state_dir_.string()},
      {"sandbox", json::object{{"backend", "bailey"},
                               {"network", "none"},
                               {"gracePeriodMs", 2000},
                               {"diskCheckMs", 2000}}},
      {"agent",
       json::object{
           {"provider", "anthropic"},
           {"providers",
            json::object{{"anthropic", json::object{{"credentialName", "ANTHROPIC_API_KEY"}}}}}}}};
  auto log = std::make_shared<spdlog::logger>("sandbox-bailey",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
  log->set_level(spdlog::level::warn);
  const auto host = host_parts_.services(
      io_.get_executor(), log, config_, errand::test::build_path(ERRAND_BAILEY_PLUGIN), state_dir_);
  backend_ = std::make_unique<errand::bailey::BaileyBackend>(host);
  auto jobs = remote::JobsDb::open(state_dir_ / "jobs.db");
  REQUIRE(ok(jobs));
  jobs_ = std::move(*jobs);
  auto blobs = remote::BlobStore::open(state_dir_ / "blobs");
  REQUIRE(ok(blobs));
  blobs_ = std::move(*blobs);
}

JobHarness::~JobHarness() {
  backend_.reset();
  blocking_.join();
}

remote::JobRequest JobHarness::admit(std::vector<std::string> argv, std::string workdir) {
  const auto now = std::chrono::time_point_cast<std::chrono::milliseconds>(remote::JobClock::now());
  remote::AdmitRequest admission;
  admission.id = remote::make_job_id(remote::JobIdTime(now.time_since_epoch()));
  admission.argv_json = json::serialize(json::value_from(argv));
  admission.digest =
      remote::sha256_hex(admission.argv_json + "\n" + workdir + "\n" + std::to_string(++admitted_));
  admission.caller_uid = 1000;
  admission.caller_name = "live-test";
  admission.workdir = workdir;
  admission.now = remote::JobClock::now();
  REQUIRE(ok(jobs_->admit(admission, remote::JobBounds{8, 8})));
  remote::JobRequest request;
  request.id = admission.id;
  request.argv = std::move(argv);
  request.workdir = std::move(workdir);
  return request;
}

std::shared_ptr<remote::JobExecution> JobHarness::make(remote::JobRequest request) {
  auto policy = errand::sandbox::policy_from_config(config_);
  REQUIRE(policy.has_value());
  remote::JobRunnerParts parts{.backend = *backend_,
                               .backend_name = "bailey",
                               .enforcement = "bailey, no network (live test)",
                               .policy = *policy,
                               .broker_socket = std::nullopt,
                               .env = {},
                               .jobs = *jobs_,
                               .blobs = *blobs_,
                               .state_dir = state_dir_,
                               .blocking = blocking_};
  return remote::JobExecution::create(io_.get_executor(), std::move(parts), std::move(request));
}

remote::JobOutcome JobHarness::run(remote::JobRequest request,
                                   const std::function<void(remote::JobExecution&)>& during) {
  auto job = make(std::move(request));
  if (during) during(*job);
  remote::JobOutcome outcome;
  bool finished = false;
  std::exception_ptr failure;
  asio::co_spawn(job->strand(), job->run(), [&](std::exception_ptr e, remote::JobOutcome result) {
    failure = e;
    outcome = std::move(result);
    finished = true;
  });
  io_.restart();
  io_.run();
  if (failure) std::rethrow_exception(failure);
  REQUIRE(finished);
  return outcome;
}

LoggedOutput read_job_log(const fs::path& file) {
  auto records = remote::JobLog::read_file(file, 0, std::size_t{64} << 20);
  REQUIRE(ok(records));
  LoggedOutput logged;
  for (const auto& record : *records) {
    (record.stream == remote::LogStream::out ? logged.out : logged.err) += record.data;
    logged.seqs.push_back(record.seq);
  }
  return logged;
}

}  // namespace remote_live
