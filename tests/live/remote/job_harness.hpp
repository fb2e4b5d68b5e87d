#pragma once

// A runner's pieces for live job tests: a real BaileyBackend made as the daemon makes it (see
// tests/live/bailey/live_harness.hpp), jobs.db, the blob store and the runner's state
// directory, all in a fresh directory under /tmp. Jobs run on the harness's own io_context.

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/json/object.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/remote/jobs/blob_store.hpp"
#include "core/remote/jobs/job_log_record.hpp"
#include "core/remote/jobs/jobs_db.hpp"
#include "core/remote/runner/job_execution.hpp"
#include "plugins/sandbox-bailey/impl/bailey_backend.hpp"
#include "tests/live/bailey/live_harness.hpp"
#include "tests/support/host_parts.hpp"

namespace remote_live {

namespace fs = std::filesystem;

class JobHarness {
 public:
  // root: a directory a previous harness left behind, to act as the next runner on its state.
  explicit JobHarness(fs::path root = {});
  ~JobHarness();

  errand::bailey::BaileyBackend& backend() { return *backend_; }
  errand::remote::JobsDb& jobs() { return *jobs_; }
  errand::remote::BlobStore& blobs() { return *blobs_; }
  const fs::path& state_dir() const { return state_dir_; }
  const fs::path& root() const { return root_.path(); }

  // A queued job for argv in jobs.db, under a fresh id; its request to run.
  errand::remote::JobRequest admit(std::vector<std::string> argv, std::string workdir = {});

  // Runs the job to its end; during() is called on the job's strand right after it is made,
  // to attach a listener or act on the job while it runs.
  errand::remote::JobOutcome run(
      errand::remote::JobRequest request,
      const std::function<void(errand::remote::JobExecution&)>& during = {});

  // Makes a new execution without running it (for a test that runs several steps itself).
  std::shared_ptr<errand::remote::JobExecution> make(errand::remote::JobRequest request);

  boost::asio::io_context& io() { return io_; }

 private:
  bailey_live::TempRoot root_;
  fs::path state_dir_;
  boost::json::object config_;
  boost::asio::io_context io_;
  boost::asio::thread_pool blocking_{1};
  errand::test::HostParts host_parts_;
  std::unique_ptr<errand::bailey::BaileyBackend> backend_;
  std::unique_ptr<errand::remote::JobsDb> jobs_;
  std::unique_ptr<errand::remote::BlobStore> blobs_;
  int admitted_ = 0;
};

struct LoggedOutput {
  std::string out;
  std::string err;
  std::vector<std::uint64_t> seqs;
};

// Every record of a finished job's log.
LoggedOutput read_job_log(const fs::path& file);

}  // namespace remote_live
