#pragma once

// The runner's jobs in one place: admission (at most once per id, through jobs.db), the queue
// (jobs start in admission order while fewer than maxJobs run), the live executions by id, and
// the news connections stream from.
//
// Threading: everything here runs on the scheduler's strand(). Executions are made on that
// strand too (a strand of it), so a job's own handlers never run alongside the scheduler's,
// and connections spawned on strand() may read a job's log and state directly.
//
// News: every change a connection may care about (new output, a job started or ended, the queue
// moved) bumps generation() and wakes every registered timer. A connection notes the generation
// before it looks, and waits only if it has not moved since, so no change is missed.
//
// A queued job that is signalled (INT, TERM or KILL) is taken off the queue: jobs.db records it
// as lost, with a detail saying it was stopped before it started. Its connections are told so
// (a refusal, code failed, with that detail: End needs an exit code or a signal, and a job that
// never ran has neither). A signal to a job still being started is held until it launches.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/remote/jobs/blob_store.hpp"
#include "core/remote/jobs/jobs_db.hpp"
#include "core/remote/runner/job_execution.hpp"
#include "core/remote/runner/job_runner_parts.hpp"
#include "core/remote/serve/peer_identity.hpp"
#include "core/remote/snapshot/manifest.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::remote {

struct SchedulerConfig {
  JobBounds bounds;  // runner.maxJobs, runner.maxQueued
  // runner.allowUsers: accounts that may connect; empty admits only the runner's own.
  std::vector<std::string> allow_users;
  // What `gc` trims the blob store to.
  std::uint64_t blob_max_bytes = std::uint64_t{10} << 30;
};

class JobScheduler {
 public:
  JobScheduler(boost::asio::any_io_executor executor, JobRunnerParts parts, SchedulerConfig config);
  JobScheduler(const JobScheduler&) = delete;
  JobScheduler& operator=(const JobScheduler&) = delete;
  ~JobScheduler();

  using Strand = boost::asio::strand<boost::asio::any_io_executor>;
  const Strand& strand() const noexcept { return strand_; }
  const SchedulerConfig& config() const noexcept { return config_; }
  JobsDb& jobs() noexcept { return parts_.jobs; }
  BlobStore& blobs() noexcept { return parts_.blobs; }
  const std::filesystem::path& state_dir() const noexcept { return parts_.state_dir; }

  // Admits the job (manifest exactly when admit.snapshot), pins its blobs until its workspace
  // is made, and starts it if a slot is free. jobs.db's refusals pass through: kind refused for
  // a malformed id or a different request under a known id, kind limit for a full queue.
  sdk::Result<Admission> admit(const PeerIdentity& caller, const wire::Admit& admit,
                               std::optional<Manifest> manifest);

  // The live execution of a started job that has not yet been let go, or null.
  std::shared_ptr<JobExecution> execution(const std::string& id) const;

  std::uint64_t generation() const noexcept { return generation_; }
  // Wakes timer (by cancelling it) on every change while it lives.
  void watch(const std::shared_ptr<boost::asio::steady_timer>& timer);

  // Stdin for a running job; empty data closes it.
  boost::asio::awaitable<sdk::Result<void>> write_stdin(std::string id, std::string data);
  // INT -> interrupt, TERM -> terminate, KILL -> kill for a running job; takes a queued one off
  // the queue. Kind not_found when the job is neither.
  sdk::Result<void> signal(const std::string& id, wire::JobSignal signal);

  // Stops starting jobs, and kills the running ones (for shutdown and tests).
  void stop();

 private:
  struct Pending {
    JobRequest request;
    std::optional<BlobPins> pins;
  };

  void changed();
  void start_ready();
  void start(std::string id, Pending pending);
  // The job's workspace is made and jobs.db says it runs: its pins go and the queue moved.
  void left_queue(const std::string& id);
  // The job's sandbox runs: a signal that came while it was being started is sent now.
  void deliver_deferred_signal(const std::string& id);
  void finished(const std::string& id);

  Strand strand_;
  JobRunnerParts parts_;
  SchedulerConfig config_;
  std::map<std::string, Pending> queued_;
  std::map<std::string, std::shared_ptr<JobExecution>> running_;
  std::map<std::string, BlobPins> starting_pins_;
  std::map<std::string, wire::JobSignal> deferred_signals_;  // for jobs not yet launched
  std::vector<std::weak_ptr<boost::asio::steady_timer>> watchers_;
  std::uint64_t generation_ = 0;
  bool stopped_ = false;
};

}  // namespace errand::remote
