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
                           std::shared_ptr<spdlog::logger> log, ProcessSetup setup,
                           std::optional<common::DiskWatch> disk)
    : Lifecycle(asio::make_strand(executor), std::move(log), "session " + setup.session_id,
                {setup.handles.pid, setup.handles.stdin_fd, setup.handles.stdout_fd,
                 setup.handles.stderr_fd},
                std::move(disk), setup.grace),
      pool_(std::move(pool)),
      setup_(std::move(setup)),
      report_(strand(), setup_.handles.report_fd),
      pidfd_(strand(), setup_.handles.pidfd),
      kill_timer_(strand()) {
  // The descriptors own these now.
  setup_.handles.report_fd = -1;
  setup_.handles.pidfd = -1;
}

ProcessState::~ProcessState() {
  setup_.handles.close_all();
}

asio::awaitable<sdk::ExitInfo> ProcessState::await_exit() {
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
  kill_timer_.cancel();
  co_return launcher_exit(status);
}

sdk::ExitInfo ProcessState::launcher_exit(int launcher_status) const {
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
  return e;
}

void ProcessState::describe_end(sdk::ExitInfo& e) {
  const auto ooms = cgroups::oom_kills(setup_.cgroup);
  const auto refused = cgroups::refused_forks(setup_.cgroup);
  const bool failed = (e.exit_code && *e.exit_code != 0) || e.signal;
  if (forced_cause() != sdk::LimitCause::none) {
    e.limit = forced_cause();
    e.detail = forced_detail() + "; " + e.detail;
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
  } else if (stop_requested()) {
    e.detail = "stopped on request; " + e.detail;
  }
  // What started() answers when the agent never ran, now that the end has its reason.
  if (!started_ && !start_error_)
    start_error_ = launcher_error_.empty()
                       ? "the launcher ended before the agent started (" + e.detail + ")"
                       : launcher_error_;
}

asio::awaitable<sdk::Result<void>> ProcessState::clean_up() {
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
  sdk::Result<void> cleaned = co_await common::run_on_pool(*pool_, std::move(cleanup));
  // The lifeline goes last: the sandbox is gone, so closing it kills nothing.
  if (setup_.handles.lifeline_fd >= 0) {
    ::close(setup_.handles.lifeline_fd);
    setup_.handles.lifeline_fd = -1;
  }
  co_return cleaned;
}

void ProcessState::signal_launcher(int sig) noexcept {
  if (has_result()) return;
  ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), sig, nullptr, 0);
}

asio::awaitable<std::optional<sdk::ExitInfo>> ProcessState::stop_steps(
    std::chrono::milliseconds grace) {
  signal_launcher(SIGTERM);
  asio::co_spawn(
      strand(),
      [self = std::static_pointer_cast<ProcessState>(shared_from_this()), grace] {
        return self->escalate_after(grace);
      },
      asio::detached);
  // Every step of the stop has its deadline (escalate_after); this bounds the whole, so a
  // sandbox the kernel cannot end (a process in uninterruptible sleep) does not hold the stop.
  const auto bound = grace + 2 * kEndAfterKillDeadline + kCleanupAllowance;
  const bool ended = co_await ended_within(bound);
  if (ended) co_return std::nullopt;
  warn_overrun("the stop", bound,
               "returning without the sandbox's end; what it leaves is the orphan sweep's");
  auto gave_up = gave_up_exit("stopped; the sandbox had not ended " +
                              std::to_string(bound.count()) + " ms later, SIGKILL included");
  gave_up.cleanup_detail = "the launcher (pid " + std::to_string(setup_.handles.pid) +
                           ") had not been reaped; its cgroups and run directory may remain";
  co_return gave_up;
}

asio::awaitable<void> ProcessState::escalate_after(std::chrono::milliseconds grace) {
  kill_timer_.expires_after(grace);
  boost::system::error_code ec;
  co_await kill_timer_.async_wait(asio::redirect_error(use_awaitable, ec));
  if (ec || has_result()) co_return;
  warn_overrun("the agent's end after SIGTERM", grace,
               "sending SIGKILL to the launcher and to every process in the session's cgroups");
  kill_now();
  const bool ended = co_await ended_within(kEndAfterKillDeadline);
  if (ended) co_return;
  // The launcher is reaped once its report pipe closes; a process that escaped the kill and
  // still holds the pipe would keep that from ever happening, so stop reading it.
  warn_overrun("the launcher's end after SIGKILL", kEndAfterKillDeadline,
               "no longer reading its report pipe, and killing the session's cgroups again");
  report_.cancel();
  cgroups::kill_all(setup_.cgroup);
}

void ProcessState::abandon() noexcept {
  try {
    asio::post(strand(), [self = std::static_pointer_cast<ProcessState>(shared_from_this())] {
      self->kill_now();
    });
  } catch (...) {
  }
}

void ProcessState::kill_now() noexcept {
  if (has_result()) return;
  signal_launcher(SIGKILL);
  // The launcher's death takes its namespace with it; the cgroup catches anything that got out.
  cgroups::kill_all(setup_.cgroup);
}

asio::awaitable<sdk::Result<void>> ProcessState::started(std::chrono::milliseconds timeout) {
  co_await asio::dispatch(strand(), use_awaitable);
  asio::steady_timer deadline(strand(), timeout);
  bool timed_out = false;
  deadline.async_wait([this, &timed_out, self = shared_from_this()](boost::system::error_code ec) {
    if (ec || started_ || has_result()) return;
    timed_out = true;
    kill_now();
  });
  while (!started_ && !has_result()) co_await wait_change();
  deadline.cancel();
  if (started_) co_return sdk::Result<void>{};
  if (timed_out)
    co_return sdk::make_error("the sandbox did not start within " +
                              std::to_string(timeout.count()) + " ms");
  co_return sdk::make_error(start_error_.value_or("the sandbox ended before the agent started"));
}

}  // namespace errand::bailey
