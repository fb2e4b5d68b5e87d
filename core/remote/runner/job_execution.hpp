#pragma once

// Runs one admitted job to its end: a sandboxed process whose command is the caller's instead
// of an agent. The job's directories are made (job_directories.hpp), jobs.db is told it runs,
// the backend launches it confined by the runner's policy, its stdout and stderr go into its
// log as they come, and once it has ended jobs.db gets its receipt, the workspace is removed
// and what the cleanup achieved is recorded.
//
// Threading: the execution lives on a strand of the executor it was made with. run() must be
// spawned on strand(), and every other member called there too; the listener is called there.
//
// Signals: the SDK can only stop a sandbox (SIGTERM to all, SIGKILL after a grace). interrupt()
// and terminate() signal the sandbox's host process (SandboxProcess::pid()) instead: for bailey
// that is the launcher, which passes SIGINT, SIGTERM, SIGHUP and SIGQUIT on to the sandbox's
// PID 1, which sends them to every process in the sandbox, the job's command among them (see
// docs/sandbox-bailey.md, steps 9 and 13). A backend whose pid does not pass signals on would
// need its own way; the live tests hold bailey to it.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/remote/jobs/job_log.hpp"
#include "core/remote/jobs/job_record.hpp"
#include "core/remote/runner/job_output_pump.hpp"
#include "core/remote/runner/job_paths.hpp"
#include "core/remote/runner/job_runner_parts.hpp"

namespace errand::remote {

// How long kill() lets the job's processes handle SIGTERM before SIGKILL.
inline constexpr std::chrono::milliseconds kJobKillGrace{2000};
// How long output may still arrive after the sandbox has ended (a pipe's last bytes) before
// the pipes are closed.
inline constexpr std::chrono::milliseconds kJobOutputDrain{5000};

// How a job ended, as jobs.db now records it.
struct JobOutcome {
  JobState state = JobState::lost;  // ended, or lost when it could not be run to an end
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string limit_cause;
  std::string detail;
  std::uint64_t output_bytes = 0;
  std::uint64_t last_seq = 0;
  bool workspace_removed = false;
  bool sandbox_removed = false;
  std::string cleanup_detail;
  // Each write to jobs.db that failed; the row then says less than this outcome does.
  std::vector<std::string> record_problems;
};

struct JobListener {
  // Once its workspace is made and jobs.db records it running: it has left the queue.
  std::function<void()> started;
  // Once its sandbox runs, so signals can reach it.
  std::function<void()> launched;
  // After each record appended to the job's log, with its number.
  std::function<void(std::uint64_t last_seq)> output;
  // Once, when the job's end and cleanup have been recorded.
  std::function<void(const JobOutcome&)> ended;
};

class JobExecution : public std::enable_shared_from_this<JobExecution> {
 public:
  static std::shared_ptr<JobExecution> create(boost::asio::any_io_executor executor,
                                              JobRunnerParts parts, JobRequest request);
  JobExecution(const JobExecution&) = delete;
  JobExecution& operator=(const JobExecution&) = delete;
  ~JobExecution();

  const boost::asio::strand<boost::asio::any_io_executor>& strand() const noexcept {
    return strand_;
  }
  const JobPaths& paths() const noexcept { return paths_; }
  // Set before run().
  void set_listener(JobListener listener) { listener_ = std::move(listener); }

  // The job's whole life, once; the job must be queued in jobs.db. Never throws for what the
  // job or the sandbox did: that is in the outcome.
  boost::asio::awaitable<JobOutcome> run();

  // True from the sandbox's start until its end has been seen.
  bool running() const noexcept { return process_ != nullptr && !ended_; }
  // The job's log, once run() has opened it; it stays readable after the end.
  const JobLog* log() const noexcept { return log_.get(); }

  // Caller input for a job started with forward_stdin. Refused (kind refused) without it, after
  // close_stdin() or once the job has ended; failed when the job closed its end.
  boost::asio::awaitable<sdk::Result<void>> write_stdin(std::string data);
  // The job reads end-of-file once it has read what was written. Idempotent.
  void close_stdin();

  // SIGINT, or SIGTERM, to the job's command (and everything else in its sandbox).
  sdk::Result<void> interrupt();
  sdk::Result<void> terminate();
  // Stops the sandbox: SIGTERM to all, SIGKILL after grace. run() then ends as for any end.
  void kill(std::chrono::milliseconds grace = kJobKillGrace);

 private:
  JobExecution(boost::asio::any_io_executor executor, JobRunnerParts parts, JobRequest request);

  sdk::LaunchSpec launch_spec() const;
  sdk::Result<void> signal_job(int sig, const char* name);
  // Opens the pipes and starts the pumps.
  void start_io();
  void pump_done();
  boost::asio::awaitable<bool> drain_output();
  // jobs.db's queued or running -> lost, with the workspace removed and the cleanup recorded.
  boost::asio::awaitable<JobOutcome> give_up(std::string detail);
  boost::asio::awaitable<void> clean_up(JobOutcome& outcome, bool sandbox_removed,
                                        std::string sandbox_detail);
  void record(JobOutcome& outcome, const sdk::Result<void>& written, const char* what);
  void release_backend_stdin() noexcept;

  boost::asio::strand<boost::asio::any_io_executor> strand_;
  JobRunnerParts parts_;
  JobRequest request_;
  JobPaths paths_;
  JobListener listener_;
  std::unique_ptr<JobLog> log_;
  std::shared_ptr<sdk::SandboxProcess> process_;
  bool ended_ = false;
  boost::asio::posix::stream_descriptor stdout_, stderr_, stdin_;
  bool stdin_closed_ = false;
  int pumps_running_ = 0;
  boost::asio::steady_timer drain_timer_;
  PumpTally out_tally_, err_tally_;
};

}  // namespace errand::remote
