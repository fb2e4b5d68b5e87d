#include "core/remote/runner/job_execution.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <system_error>

#include "common/ignore_sigpipe.hpp"
#include "common/pool_work.hpp"
#include "core/remote/runner/job_command.hpp"
#include "core/remote/runner/job_directories.hpp"

namespace errand::remote {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

std::string job_limit_cause_name(sdk::LimitCause cause) {
  switch (cause) {
    case sdk::LimitCause::none: return {};
    case sdk::LimitCause::memory: return "memory";
    case sdk::LimitCause::pids: return "pids";
    case sdk::LimitCause::file_size: return "file_size";
    case sdk::LimitCause::disk: return "disk";
    case sdk::LimitCause::cpu: return "cpu";
  }
  return "unknown";
}

void job_append_sentence(std::string& text, std::string_view sentence) {
  if (sentence.empty()) return;
  if (!text.empty()) text += "; ";
  text += sentence;
}

// Our own descriptor for one of the sandbox's pipes, which stay the backend's.
int job_duplicate_fd(int fd) {
  return fd < 0 ? -1 : ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

// Holds the sandbox for as long as its stop takes, whatever happens to the execution meanwhile.
asio::awaitable<void> job_stop_sandbox(std::shared_ptr<sdk::SandboxProcess> process,
                                       std::chrono::milliseconds grace) {
  const auto stopped = co_await process->stop(grace);
  (void)stopped;  // run() sees the same end through wait()
}

}  // namespace

std::shared_ptr<JobExecution> JobExecution::create(asio::any_io_executor executor,
                                                   JobRunnerParts parts, JobRequest request) {
  // A job that closed its stdin must come back as EPIPE, not end the runner.
  if (request.forward_stdin) common::ignore_sigpipe_once();
  return std::shared_ptr<JobExecution>(
      new JobExecution(std::move(executor), std::move(parts), std::move(request)));
}

JobExecution::JobExecution(asio::any_io_executor executor, JobRunnerParts parts, JobRequest request)
    : strand_(asio::make_strand(executor)),
      parts_(std::move(parts)),
      request_(std::move(request)),
      // The backend refuses relative session directories.
      paths_(job_paths(fs::absolute(parts_.state_dir), request_.id)),
      stdout_(strand_),
      stderr_(strand_),
      stdin_(strand_),
      drain_timer_(strand_) {}

JobExecution::~JobExecution() = default;

sdk::LaunchSpec JobExecution::launch_spec() const {
  sdk::LaunchSpec spec;
  spec.session_id = job_sandbox_name(request_.id);
  spec.project_dir = paths_.workspace;
  spec.state_dir = paths_.state;
  spec.record_dir = paths_.record;
  spec.broker_socket = parts_.broker_socket;
  spec.argv = job_launch_argv(request_.workdir, request_.argv);
  spec.env = job_launch_env(request_.env, parts_.env);
  spec.policy = parts_.policy;
  return spec;
}

asio::awaitable<JobOutcome> JobExecution::run() {
  const auto keep_alive = shared_from_this();
  if (auto checked = check_job_workdir(request_.workdir); !checked) {
    std::string why = checked.error().message;
    co_return co_await give_up(std::move(why));
  }
  if (request_.argv.empty()) {
    std::string why = "the job has no command to run";
    co_return co_await give_up(std::move(why));
  }
  auto prepare = [this] {
    return prepare_job_directories(paths_, request_.manifest, parts_.blobs);
  };
  const auto prepared = co_await common::run_on_pool(parts_.blocking, std::move(prepare));
  if (!prepared) {
    std::string why = "its workspace could not be made: " + prepared.error().message;
    co_return co_await give_up(std::move(why));
  }
  std::error_code ec;
  if (!fs::is_directory(paths_.workspace / request_.workdir, ec)) {
    std::string why = "its workdir \"" + request_.workdir + "\" is not a directory of its tree";
    co_return co_await give_up(std::move(why));
  }
  auto opened = JobLog::open(paths_.log);
  if (!opened) {
    std::string why = "its output log could not be opened: " + opened.error().message;
    co_return co_await give_up(std::move(why));
  }
  log_ = std::move(*opened);

  // Recorded before the launch: a runner that dies while launching leaves the job running in
  // jobs.db, which the next start reconciles as lost, never queued to run a second time.
  const JobStart start{parts_.backend_name, parts_.enforcement, job_sandbox_name(request_.id),
                       static_cast<std::int64_t>(::getpid()), JobClock::now()};
  if (auto marked = parts_.jobs.mark_running(request_.id, start); !marked) {
    std::string why = "jobs.db could not record its start: " + marked.error().message;
    co_return co_await give_up(std::move(why));
  }
  if (listener_.started) listener_.started();
  auto spec = launch_spec();
  auto launched = co_await parts_.backend.launch(std::move(spec));
  if (!launched) {
    std::string why = "its sandbox did not start: " + launched.error().message;
    co_return co_await give_up(std::move(why));
  }
  process_ = std::move(*launched);
  start_io();
  if (listener_.launched) listener_.launched();

  const sdk::ExitInfo exit = co_await process_->wait();
  ended_ = true;
  const bool whole = co_await drain_output();
  boost::system::error_code ignored;
  stdin_.close(ignored);
  stdout_.close(ignored);
  stderr_.close(ignored);

  JobOutcome outcome;
  outcome.state = JobState::ended;
  // jobs.db takes one of the two; the signal is what ended the process when a backend gives both.
  if (exit.signal)
    outcome.signal = exit.signal;
  else
    outcome.exit_code = exit.exit_code;
  outcome.limit_cause = job_limit_cause_name(exit.limit);
  outcome.detail = exit.detail;
  if (!whole)
    job_append_sentence(outcome.detail,
                        "its output pipes stayed open after it ended and were "
                        "closed; later output is not in the log");
  for (const auto* tally : {&out_tally_, &err_tally_})
    if (!tally->log_error.empty())
      job_append_sentence(outcome.detail, "output was dropped from the log: " + tally->log_error);
  outcome.output_bytes = out_tally_.data_bytes + err_tally_.data_bytes;
  outcome.last_seq = log_->last_sequence();
  if (auto synced = log_->sync(); !synced)
    job_append_sentence(outcome.detail, "the log is not durable: " + synced.error().message);

  JobEnd end;
  end.exit_code = outcome.exit_code;
  end.signal = outcome.signal;
  end.limit_cause = outcome.limit_cause;
  end.detail = outcome.detail;
  end.output_bytes = outcome.output_bytes;
  end.last_seq = outcome.last_seq;
  end.now = JobClock::now();
  record(outcome, parts_.jobs.mark_ended(request_.id, end), "its end");
  process_.reset();

  std::string sandbox_detail = exit.cleanup_detail;
  co_await clean_up(outcome, exit.cleanup_complete, std::move(sandbox_detail));
  if (listener_.ended) listener_.ended(outcome);
  co_return outcome;
}

void JobExecution::start_io() {
  auto open_pump = [this](asio::posix::stream_descriptor& pipe, int fd, LogStream stream,
                          PumpTally& tally) {
    const int own = job_duplicate_fd(fd);
    if (own < 0) {
      if (fd >= 0)
        tally.log_error = "its pipe could not be read: " + std::system_category().message(errno);
      return;
    }
    pipe.assign(own);
    ++pumps_running_;
    asio::co_spawn(strand_, pump_job_output(pipe, stream, *log_, listener_.output, tally),
                   [self = shared_from_this()](std::exception_ptr) { self->pump_done(); });
  };
  open_pump(stdout_, process_->stdout_fd(), LogStream::out, out_tally_);
  open_pump(stderr_, process_->stderr_fd(), LogStream::err, err_tally_);
  if (!request_.forward_stdin) {
    close_stdin();
    return;
  }
  const int own = job_duplicate_fd(process_->stdin_fd());
  if (own >= 0) stdin_.assign(own);
}

void JobExecution::pump_done() {
  if (--pumps_running_ == 0) drain_timer_.cancel();
}

asio::awaitable<bool> JobExecution::drain_output() {
  bool whole = true;
  drain_timer_.expires_after(kJobOutputDrain);
  while (pumps_running_ > 0) {
    boost::system::error_code ec;
    co_await drain_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec || pumps_running_ == 0) continue;  // a pump ended and woke us
    // Something outside the sandbox still holds a pipe open; the log cannot wait for ever.
    whole = false;
    stdout_.close(ec);
    stderr_.close(ec);
    drain_timer_.expires_after(kJobOutputDrain);
  }
  co_return whole;
}

asio::awaitable<JobOutcome> JobExecution::give_up(std::string detail) {
  JobOutcome outcome;
  outcome.state = JobState::lost;
  outcome.detail = detail;
  if (log_) outcome.last_seq = log_->last_sequence();
  record(outcome, parts_.jobs.mark_lost(request_.id, detail, JobClock::now()), "that it was lost");
  // No sandbox ran, or its launch failed and the backend undid what it had made.
  std::string sandbox_detail;
  co_await clean_up(outcome, true, std::move(sandbox_detail));
  if (listener_.ended) listener_.ended(outcome);
  co_return outcome;
}

asio::awaitable<void> JobExecution::clean_up(JobOutcome& outcome, bool sandbox_removed,
                                             std::string sandbox_detail) {
  auto remove = [paths = paths_] { return remove_job_tree(paths); };
  const auto removal = co_await common::run_on_pool(parts_.blocking, std::move(remove));
  outcome.workspace_removed = removal.removed;
  outcome.sandbox_removed = sandbox_removed;
  outcome.cleanup_detail = std::move(sandbox_detail);
  job_append_sentence(outcome.cleanup_detail, removal.detail);
  record(outcome,
         parts_.jobs.record_cleanup(request_.id, outcome.workspace_removed, outcome.sandbox_removed,
                                    outcome.cleanup_detail),
         "its cleanup");
}

void JobExecution::record(JobOutcome& outcome, const sdk::Result<void>& written, const char* what) {
  if (!written)
    outcome.record_problems.push_back(std::string("jobs.db could not record ") + what + ": " +
                                      written.error().message);
}

asio::awaitable<sdk::Result<void>> JobExecution::write_stdin(std::string data) {
  if (!request_.forward_stdin)
    co_return sdk::make_error("job " + request_.id + " was not started with forwarded stdin",
                              sdk::Error::Kind::refused);
  if (stdin_closed_ || !running() || !stdin_.is_open())
    co_return sdk::make_error("job " + request_.id + " takes no more input",
                              sdk::Error::Kind::refused);
  boost::system::error_code ec;
  const auto bytes = asio::buffer(data);
  co_await asio::async_write(stdin_, bytes, asio::redirect_error(asio::use_awaitable, ec));
  if (ec)
    co_return sdk::make_error("could not write to the stdin of job " + request_.id + ": " +
                              ec.message());
  co_return sdk::Result<void>{};
}

void JobExecution::close_stdin() {
  if (stdin_closed_) return;
  stdin_closed_ = true;
  boost::system::error_code ignored;
  stdin_.close(ignored);
  release_backend_stdin();
}

// The backend owns the pipe's write end and closes it only when the sandbox is gone, so the job
// would never read end-of-file. /dev/null is put in its place under the same number: the pipe's
// last writer goes, and what the backend later closes is that copy of /dev/null. Only while the
// process handle is held, which keeps the number the backend's.
void JobExecution::release_backend_stdin() noexcept {
  if (!process_ || ended_ || process_->stdin_fd() < 0) return;
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0) return;
  ::dup3(null, process_->stdin_fd(), O_CLOEXEC);
  ::close(null);
}

sdk::Result<void> JobExecution::signal_job(int sig, const char* name) {
  if (!running())
    return sdk::make_error("job " + request_.id + " is not running", sdk::Error::Kind::refused);
  if (::kill(process_->pid(), sig) != 0)
    return sdk::make_error("could not send " + std::string(name) + " to job " + request_.id + ": " +
                           std::system_category().message(errno));
  return {};
}

sdk::Result<void> JobExecution::interrupt() {
  return signal_job(SIGINT, "SIGINT");
}

sdk::Result<void> JobExecution::terminate() {
  return signal_job(SIGTERM, "SIGTERM");
}

void JobExecution::kill(std::chrono::milliseconds grace) {
  if (!running()) return;
  asio::co_spawn(strand_, job_stop_sandbox(process_, grace), asio::detached);
}

}  // namespace errand::remote
