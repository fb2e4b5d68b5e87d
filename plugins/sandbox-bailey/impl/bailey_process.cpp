#include "plugins/sandbox-bailey/impl/bailey_process.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstring>

#include "common/human_size.hpp"
#include "common/pool_work.hpp"
#include "common/stop_deadline.hpp"
#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"
#include "plugins/sandbox-bailey/impl/stop_deadlines.hpp"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

namespace errand::bailey {

namespace {

using asio::use_awaitable;

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : std::to_string(sig);
}

}  // namespace

ProcessState::ProcessState(asio::any_io_executor executor, std::shared_ptr<asio::thread_pool> pool,
                           std::shared_ptr<common::DiskWalker> walker,
                           std::shared_ptr<spdlog::logger> log, ProcessSetup setup)
    : strand_(asio::make_strand(executor)),
      pool_(std::move(pool)),
      walker_(std::move(walker)),
      log_(std::move(log)),
      setup_(std::move(setup)),
      report_(strand_, setup_.handles.report_fd),
      pidfd_(strand_, setup_.handles.pidfd),
      changed_(strand_, asio::steady_timer::time_point::max()),
      disk_timer_(strand_),
      kill_timer_(strand_) {
  // The descriptors own these now.
  setup_.handles.report_fd = -1;
  setup_.handles.pidfd = -1;
}

ProcessState::~ProcessState() {
  setup_.handles.close_all();
}

void ProcessState::start() {
  asio::co_spawn(
      strand_, [self = shared_from_this()] { return self->watch_launcher(); }, asio::detached);
  if (setup_.disk.measured())
    asio::co_spawn(
        strand_, [self = shared_from_this()] { return self->watch_disk(); }, asio::detached);
}

asio::awaitable<void> ProcessState::wait_change() {
  boost::system::error_code ignored;
  co_await changed_.async_wait(asio::redirect_error(use_awaitable, ignored));
}

asio::awaitable<void> ProcessState::watch_launcher() {
  std::string pending;
  char buf[1024];
  while (true) {
    boost::system::error_code ec;
    const auto n = co_await report_.async_read_some(asio::buffer(buf),
                                                    asio::redirect_error(use_awaitable, ec));
    if (ec) break;
    pending.append(buf, n);
    for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
      const auto line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      const auto event = parse_launcher_line(line);
      if (!event) continue;
      switch (event->kind) {
        case LauncherEvent::Kind::running: started_ = true; break;
        case LauncherEvent::Kind::exit_code: exit_code_ = event->number; break;
        case LauncherEvent::Kind::exit_signal: exit_signal_ = event->number; break;
        case LauncherEvent::Kind::error:
          launcher_error_ = event->text;
          if (!started_) start_error_ = event->text;
          break;
      }
      notify();
    }
  }
  // Every writer of the report pipe is gone; the launcher is exiting or has exited. Usually it
  // has, and is reaped at once; otherwise its pidfd says when.
  siginfo_t info{};
  const auto reap = [&](int flags) {
    info = {};
    return ::waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(pidfd_.native_handle()),
                    &info, WEXITED | flags) == 0;
  };
  bool reaped = reap(WNOHANG) && info.si_pid != 0;
  if (!reaped) {
    boost::system::error_code ec;
    co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                               asio::redirect_error(use_awaitable, ec));
    reaped = reap(0);
  }
  int status = 0;
  if (reaped)
    status = info.si_code == CLD_EXITED ? W_EXITCODE(info.si_status, 0) : info.si_status;
  else
    ::waitpid(setup_.handles.pid, &status, 0);
  disk_timer_.cancel();
  kill_timer_.cancel();

  auto exit = compose_exit(status);
  // GCC 12 mishandles temporaries with non-trivial captures inside a co_await expression, so
  // the work is a named object.
  auto cleanup = [cgroup = setup_.cgroup, run_dir = setup_.run_dir]() -> sdk::Result<void> {
    const auto removed = cgroups::remove(cgroup);
    std::string detail = removed ? std::string() : removed.error().message;
    std::error_code ec;
    if (!run_dir.empty() &&
        std::filesystem::remove_all(run_dir, ec) == static_cast<std::uintmax_t>(-1)) {
      detail += (detail.empty() ? "" : "; ") + std::string("the run directory ") +
                run_dir.string() + " could not be removed: " + ec.message();
    }
    if (!detail.empty()) return sdk::make_error(std::move(detail));
    return {};
  };
  const sdk::Result<void> cleaned = co_await common::run_on_pool(*pool_, std::move(cleanup));
  exit.cleanup_complete = cleaned.has_value();
  if (!cleaned) exit.cleanup_detail = cleaned.error().message;
  if (!started_ && !start_error_)
    start_error_ = launcher_error_.empty()
                       ? "the launcher ended before the agent started (" + exit.detail + ")"
                       : launcher_error_;
  // The lifeline goes last: the sandbox is gone, so closing it kills nothing.
  if (setup_.handles.lifeline_fd >= 0) {
    ::close(setup_.handles.lifeline_fd);
    setup_.handles.lifeline_fd = -1;
  }
  result_ = std::move(exit);
  ended_ = true;
  if (log_)
    log_->info("session {}: sandbox ended: {}{}", setup_.session_id, result_->detail,
               result_->cleanup_complete ? "" : "; cleanup incomplete: " + result_->cleanup_detail);
  notify();
}

sdk::ExitInfo ProcessState::compose_exit(int launcher_status) {
  sdk::ExitInfo e;
  if (exit_code_) {
    e.exit_code = exit_code_;
    e.detail = "the agent exited with " + std::to_string(*exit_code_);
  } else if (exit_signal_) {
    e.signal = exit_signal_;
    e.detail = "the agent was killed by " + signal_name(*exit_signal_);
  } else if (WIFSIGNALED(launcher_status)) {
    e.signal = WTERMSIG(launcher_status);
    e.detail = "the launcher was killed by " + signal_name(*e.signal);
  } else {
    e.exit_code = WEXITSTATUS(launcher_status);
    e.detail = launcher_error_.empty() ? "the launcher exited with " + std::to_string(*e.exit_code)
                                       : launcher_error_;
  }
  const auto ooms = cgroups::oom_kills(setup_.cgroup);
  const auto refused = cgroups::refused_forks(setup_.cgroup);
  const bool failed = (e.exit_code && *e.exit_code != 0) || e.signal;
  if (forced_cause_ != sdk::LimitCause::none) {
    e.limit = forced_cause_;
    e.detail = forced_detail_ + "; " + e.detail;
  } else if (ooms > 0) {
    e.limit = sdk::LimitCause::memory;
    e.detail = "the session passed its memory limit of " +
               common::config_size(setup_.memory_limit) + " and the kernel killed " +
               std::to_string(ooms) + " process(es); " + e.detail;
  } else if (e.signal && *e.signal == SIGXFSZ) {
    e.limit = sdk::LimitCause::file_size;
    e.detail = "a file passed the session's size limit (sandbox.fileMax); " + e.detail;
  } else if (refused > 0 && failed) {
    e.limit = sdk::LimitCause::pids;
    e.detail = std::to_string(refused) + " fork(s) were refused at the session's limit of " +
               std::to_string(setup_.pids_limit) + " processes; " + e.detail;
  } else if (stop_requested_) {
    e.detail = "stopped on request; " + e.detail;
  }
  return e;
}

asio::awaitable<void> ProcessState::watch_disk() {
  common::DiskWatch watch(walker_, setup_.disk, setup_.disk_baseline, log_, setup_.session_id);
  const auto over = co_await watch.run(disk_timer_, [this] { return result_.has_value(); });
  if (over) co_await stop(setup_.grace, sdk::LimitCause::disk, *over);
}

void ProcessState::signal_launcher(int sig) noexcept {
  if (result_) return;
  ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), sig, nullptr, 0);
}

void ProcessState::request_stop(std::chrono::milliseconds grace) {
  if (result_ || stop_requested_) return;
  stop_requested_ = true;
  signal_launcher(SIGTERM);
  asio::co_spawn(
      strand_, [self = shared_from_this(), grace] { return self->escalate_after(grace); },
      asio::detached);
}

asio::awaitable<void> ProcessState::escalate_after(std::chrono::milliseconds grace) {
  kill_timer_.expires_after(grace);
  boost::system::error_code ec;
  co_await kill_timer_.async_wait(asio::redirect_error(use_awaitable, ec));
  if (ec || result_) co_return;
  warn_overrun("the agent's end after SIGTERM", grace,
               "sending SIGKILL to the launcher and to every process in the session's cgroups");
  kill_now();
  if (co_await ended_within(kEndAfterKillDeadline)) co_return;
  // The launcher is reaped once its report pipe closes; a process that escaped the kill and
  // still holds the pipe would keep that from ever happening, so stop reading it.
  warn_overrun("the launcher's end after SIGKILL", kEndAfterKillDeadline,
               "no longer reading its report pipe, and killing the session's cgroups again");
  report_.cancel();
  cgroups::kill_all(setup_.cgroup);
}

asio::awaitable<bool> ProcessState::ended_within(std::chrono::milliseconds limit) {
  std::function<bool()> ended = [this] { return result_.has_value(); };
  co_return co_await common::wait_done_within(changed_, limit, std::move(ended));
}

void ProcessState::warn_overrun(std::string_view step, std::chrono::milliseconds deadline,
                                std::string_view escalation) const {
  if (log_)
    log_->warn("{}", common::stop_overrun_warning("session " + setup_.session_id, step, deadline,
                                                  escalation));
}

void ProcessState::kill_soon() {
  asio::post(strand_, [self = shared_from_this()] { self->kill_now(); });
}

void ProcessState::kill_now() noexcept {
  if (result_) return;
  signal_launcher(SIGKILL);
  // The launcher's death takes its namespace with it; the cgroup catches anything that got out.
  cgroups::kill_all(setup_.cgroup);
}

asio::awaitable<sdk::Result<void>> ProcessState::started(std::chrono::milliseconds timeout) {
  co_await asio::dispatch(strand_, use_awaitable);
  asio::steady_timer deadline(strand_, timeout);
  bool timed_out = false;
  deadline.async_wait([this, &timed_out, self = shared_from_this()](boost::system::error_code ec) {
    if (ec || started_ || result_) return;
    timed_out = true;
    kill_now();
  });
  while (!started_ && !result_) co_await wait_change();
  deadline.cancel();
  if (started_) co_return sdk::Result<void>{};
  if (timed_out)
    co_return sdk::make_error("the sandbox did not start within " +
                              std::to_string(timeout.count()) + " ms");
  co_return sdk::make_error(start_error_.value_or("the sandbox ended before the agent started"));
}

asio::awaitable<sdk::ExitInfo> ProcessState::finished() {
  co_await asio::dispatch(strand_, use_awaitable);
  while (!result_) co_await wait_change();
  co_return *result_;
}

asio::awaitable<sdk::ExitInfo> ProcessState::stop(std::chrono::milliseconds grace,
                                                  sdk::LimitCause cause, std::string detail) {
  co_await asio::dispatch(strand_, use_awaitable);
  if (!result_ && !stop_requested_ && cause != sdk::LimitCause::none) {
    forced_cause_ = cause;
    forced_detail_ = std::move(detail);
  }
  request_stop(grace);
  // Every step of the stop has its deadline (escalate_after); this bounds the whole, so a
  // sandbox the kernel cannot end (a process in uninterruptible sleep) does not hold the stop.
  const auto bound = grace + 2 * kEndAfterKillDeadline + kCleanupAllowance;
  if (co_await ended_within(bound)) co_return *result_;
  warn_overrun("the stop", bound,
               "returning without the sandbox's end; what it leaves is the orphan sweep's");
  sdk::ExitInfo gave_up;
  gave_up.signal = SIGKILL;
  // A stop forced by a limit keeps its cause, as an ended sandbox's exit would (finish()).
  gave_up.limit = forced_cause_;
  gave_up.detail = (forced_detail_.empty() ? std::string() : forced_detail_ + "; ") +
                   "stopped; the sandbox had not ended " + std::to_string(bound.count()) +
                   " ms later, SIGKILL included";
  gave_up.cleanup_detail = "the launcher (pid " + std::to_string(setup_.handles.pid) +
                           ") had not been reaped; its cgroups and run directory may remain";
  co_return gave_up;
}

BaileyProcess::~BaileyProcess() {
  // Dropped while running: nothing may outlive its owner unsupervised. Cleanup still runs.
  state_->kill_soon();
}

asio::awaitable<sdk::ExitInfo> BaileyProcess::wait() {
  return state_->finished();
}

asio::awaitable<sdk::ExitInfo> BaileyProcess::stop(std::chrono::milliseconds grace) {
  return state_->stop(grace);
}

}  // namespace errand::bailey
