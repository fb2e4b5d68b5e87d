#include "plugins/sandbox-podman/impl/podman_process.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>

#include "common/pool_work.hpp"
#include "common/stop_deadline.hpp"
#include "plugins/sandbox-podman/impl/stop_deadlines.hpp"

namespace errand::podman {

using asio::use_awaitable;

namespace {

// podman start --attach exits with the container's status: 125 is podman's own failure (an
// agent command the image lacks among them), 126 and 127 a shell's, and 128+N means the agent
// was ended by signal N.
sdk::ExitInfo exit_from(int status) {
  sdk::ExitInfo info;
  if (WIFSIGNALED(status)) {
    info.signal = WTERMSIG(status);
    info.detail = "podman start itself was killed by signal " + std::to_string(WTERMSIG(status));
    return info;
  }
  const int code = WEXITSTATUS(status);
  if (code > 128 && code < 128 + 65) {
    info.signal = code - 128;
    info.detail = "the agent was ended by signal " + std::to_string(code - 128);
  } else {
    info.exit_code = code;
    if (code == 125) info.detail = "podman could not run the container (its words are on stderr)";
    if (code == 126) info.detail = "the agent command is not executable in the image";
    if (code == 127) info.detail = "the agent command is not in the image";
  }
  return info;
}

}  // namespace

std::pair<bool, std::string> remove_container(const PodmanEnvironment& env,
                                              const std::string& name) {
  auto rm =
      run_podman(env, {"--log-level=error", "rm", "--force", "--ignore", name}, kRemoveDeadline);
  if (!rm) return {false, "could not remove the container " + name + ": " + rm.error().message};
  if (rm->exit_code != 0)
    return {false, "podman rm of the container " + name + " failed: " + failure_text(*rm)};
  return {true, {}};
}

ContainerState::ContainerState(asio::any_io_executor executor,
                               std::shared_ptr<asio::thread_pool> pool,
                               std::shared_ptr<spdlog::logger> log, PodmanEnvironment env,
                               std::string name, RunningPodman running,
                               std::optional<common::DiskWatch> disk,
                               std::chrono::milliseconds grace)
    : strand_(asio::make_strand(executor)),
      pool_(std::move(pool)),
      log_(std::move(log)),
      env_(std::move(env)),
      name_(std::move(name)),
      running_(running),
      pidfd_(strand_, running.pidfd),
      changed_(strand_, std::chrono::steady_clock::time_point::max()),
      disk_(std::move(disk)),
      disk_timer_(strand_),
      grace_(grace) {
  running_.pidfd = -1;  // owned by pidfd_ now
}

ContainerState::~ContainerState() {
  running_.close_all();
}

void ContainerState::start() {
  asio::co_spawn(
      strand_, [self = shared_from_this()] { return self->watch(); }, asio::detached);
  if (disk_)
    asio::co_spawn(
        strand_, [self = shared_from_this()] { return self->watch_disk(); }, asio::detached);
}

asio::awaitable<void> ContainerState::watch_disk() {
  const auto over = co_await disk_->run(disk_timer_, [this] { return exited_; });
  if (over) co_await stop(grace_, sdk::LimitCause::disk, *over);
}

asio::awaitable<void> ContainerState::wait_change() {
  boost::system::error_code ignored;
  co_await changed_.async_wait(asio::redirect_error(use_awaitable, ignored));
}

asio::awaitable<void> ContainerState::watch() {
  boost::system::error_code ec;
  co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                             asio::redirect_error(use_awaitable, ec));
  int status = 0;
  while (::waitpid(running_.pid, &status, 0) < 0 && errno == EINTR) {
  }
  // From here the exit is being composed: a measurement still under way must not stop it.
  exited_ = true;
  disk_timer_.cancel();
  changed_.cancel();  // a stop waiting for this end goes on at once
  auto info = exit_from(status);
  if (stop_requested_ && info.detail.empty()) info.detail = "stopped";
  if (forced_cause_ != sdk::LimitCause::none) {
    info.limit = forced_cause_;
    info.detail = forced_detail_ + (info.detail.empty() ? "" : "; " + info.detail);
  }
  auto env = env_;
  auto name = name_;
  auto removal = [env, name] { return remove_container(env, name); };
  const std::pair<bool, std::string> removed =
      co_await common::run_on_pool(*pool_, std::move(removal));
  info.cleanup_complete = removed.first;
  info.cleanup_detail = removed.second;
  if (!removed.first) log_->warn("{}", removed.second);
  result_ = info;
  ended_ = true;
  changed_.cancel();
}

asio::awaitable<sdk::ExitInfo> ContainerState::finished() {
  co_await asio::dispatch(strand_, use_awaitable);
  while (!result_) co_await wait_change();
  co_return *result_;
}

asio::awaitable<sdk::ExitInfo> ContainerState::stop(std::chrono::milliseconds grace,
                                                    sdk::LimitCause cause, std::string detail) {
  co_await asio::dispatch(strand_, use_awaitable);
  if (!result_ && !stop_requested_) {
    stop_requested_ = true;
    forced_cause_ = cause;
    forced_detail_ = std::move(detail);
    co_await stop_steps(grace);
  }
  co_return co_await finished();
}

asio::awaitable<bool> ContainerState::ended_within(std::chrono::milliseconds limit) {
  std::function<bool()> ended = [this] { return exited_; };
  co_return co_await common::wait_done_within(changed_, limit, std::move(ended));
}

asio::awaitable<bool> ContainerState::podman_step(std::vector<std::string> args) {
  std::string step = "podman";
  for (const auto& a : args) step += " " + a;
  args.insert(args.begin(), "--log-level=error");
  auto work = [env = env_, args = std::move(args)] {
    return run_podman(env, args, kPodmanCommandDeadline);
  };
  const sdk::Result<CommandOutput> out = co_await common::run_on_pool(*pool_, std::move(work));
  if (out && out->timed_out) {
    log_->warn("{}",
               common::stop_overrun_warning(who(), step, kPodmanCommandDeadline,
                                            "killed that podman and went on to the next step"));
    co_return false;
  }
  if (!out || out->exit_code != 0) {
    // A container that ended meanwhile refuses a signal; that is no failure of the stop.
    if (!exited_)
      log_->warn("{}: {} failed: {}", who(), step, out ? failure_text(*out) : out.error().message);
    co_return false;
  }
  co_return true;
}

asio::awaitable<std::string> ContainerState::container_status() {
  auto inspect = [env = env_, name = name_] {
    return run_podman(
        env, {"--log-level=error", "container", "inspect", "--format", "{{.State.Status}}", name},
        kPodmanCommandDeadline);
  };
  const sdk::Result<CommandOutput> out = co_await common::run_on_pool(*pool_, std::move(inspect));
  if (!out || out->exit_code != 0) co_return std::string();
  std::string status = out->out;
  while (!status.empty() && (status.back() == '\n' || status.back() == ' ')) status.pop_back();
  co_return status;
}

asio::awaitable<bool> ContainerState::wait_until_started() {
  // `podman start` was spawned before launch returned, but podman may not have started the
  // container yet; a signal or `podman stop` then finds nothing running, does nothing, and the
  // agent starts afterwards and runs unstopped. So wait until the container runs (or is gone:
  // podman start failed or has removed it, and nothing is left to start).
  const auto deadline = std::chrono::steady_clock::now() + kStillStartingDeadline;
  while (!exited_) {
    const std::string status = co_await container_status();
    if (status != "created" && status != "configured" && status != "initialized") co_return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) co_return false;
    co_await ended_within(std::min(left, std::chrono::milliseconds(100)));
  }
  co_return true;
}

asio::awaitable<void> ContainerState::stop_steps(std::chrono::milliseconds grace) {
  // Named rather than temporaries: GCC 12 mishandles temporaries that live across a co_await.
  std::vector<std::string> remove{"rm", "--force", "--ignore", "--time", "0", name_};
  std::vector<std::string> term{"kill", "--signal", "TERM", name_};
  std::vector<std::string> sigkill{"kill", "--signal", "KILL", name_};
  const bool started = co_await wait_until_started();
  if (!started) {
    log_->warn("{}", common::stop_overrun_warning(
                         who(), "starting the container (asked to stop meanwhile)",
                         kStillStartingDeadline, "removing it with podman rm --force --time 0"));
    co_await podman_step(remove);
  } else if (!exited_) {
    // The container's PID 1, errand-relay, passes SIGTERM on to the agent.
    co_await podman_step(term);
    // The grace is the agent's: a container that has ended within it needs no SIGKILL, though
    // podman start may take a moment longer to notice.
    std::string status;
    if (!co_await ended_within(grace)) status = co_await container_status();
    if (status == "running") {
      log_->warn("{}", common::stop_overrun_warning(who(), "the agent's end after SIGTERM", grace,
                                                    "sending SIGKILL (podman kill --signal KILL)"));
      co_await podman_step(sigkill);
    }
  }
  if (co_await ended_within(kEndAfterKillDeadline)) co_return;
  log_->warn("{}", common::stop_overrun_warning(
                       who(), "podman start's end after the container was killed",
                       kEndAfterKillDeadline, "removing it with podman rm --force --time 0"));
  co_await podman_step(remove);
  if (co_await ended_within(kEndAfterKillDeadline)) co_return;
  log_->warn("{}",
             common::stop_overrun_warning(
                 who(), "podman start's end after the container was removed", kEndAfterKillDeadline,
                 "killing podman start's process group (pid " + std::to_string(running_.pid) +
                     ") with SIGKILL"));
  // Not yet reaped (exited_ is set on this strand right after the reaping), so the pid and its
  // group are still podman start's.
  ::kill(-running_.pid, SIGKILL);
  ::kill(running_.pid, SIGKILL);
}

void ContainerState::remove_soon() noexcept {
  if (ended_) return;
  try {
    asio::post(*pool_, [env = env_, name = name_] { remove_container(env, name); });
  } catch (...) {
  }
}

PodmanProcess::~PodmanProcess() {
  state_->remove_soon();
}

}  // namespace errand::podman
