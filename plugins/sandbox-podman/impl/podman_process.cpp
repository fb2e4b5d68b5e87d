#include "plugins/sandbox-podman/impl/podman_process.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>

#include "common/pool_work.hpp"
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
    : Lifecycle(asio::make_strand(executor), std::move(log), "session container " + name,
                {running.pid, running.stdin_fd, running.stdout_fd, running.stderr_fd},
                std::move(disk), grace),
      pool_(std::move(pool)),
      env_(std::move(env)),
      name_(std::move(name)),
      running_(running),
      pidfd_(strand(), running.pidfd) {
  running_.pidfd = -1;  // owned by pidfd_ now
}

ContainerState::~ContainerState() {
  running_.close_all();
}

asio::awaitable<sdk::ExitInfo> ContainerState::await_exit() {
  boost::system::error_code ec;
  co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                             asio::redirect_error(use_awaitable, ec));
  int status = 0;
  while (::waitpid(running_.pid, &status, 0) < 0 && errno == EINTR) {
  }
  co_return exit_from(status);
}

asio::awaitable<sdk::Result<void>> ContainerState::clean_up() {
  auto removal = [env = env_, name = name_] { return remove_container(env, name); };
  const std::pair<bool, std::string> removed =
      co_await common::run_on_pool(*pool_, std::move(removal));
  if (!removed.first) co_return sdk::make_error(removed.second);
  co_return sdk::Result<void>{};
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
    warn_overrun(step, kPodmanCommandDeadline, "killed that podman and went on to the next step");
    co_return false;
  }
  if (!out || out->exit_code != 0) {
    // A container that ended meanwhile refuses a signal; that is no failure of the stop.
    if (!exited())
      log()->warn("{}: {} failed: {}", who(), step, out ? failure_text(*out) : out.error().message);
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
  while (!exited()) {
    const std::string status = co_await container_status();
    if (status != "created" && status != "configured" && status != "initialized") co_return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) co_return false;
    co_await exited_within(std::min(left, std::chrono::milliseconds(100)));
  }
  co_return true;
}

asio::awaitable<std::optional<sdk::ExitInfo>> ContainerState::stop_steps(
    std::chrono::milliseconds grace) {
  // Named rather than temporaries: GCC 12 mishandles temporaries that live across a co_await.
  std::vector<std::string> remove{"rm", "--force", "--ignore", "--time", "0", name_};
  std::vector<std::string> term{"kill", "--signal", "TERM", name_};
  std::vector<std::string> sigkill{"kill", "--signal", "KILL", name_};
  const bool started = co_await wait_until_started();
  if (!started) {
    warn_overrun("starting the container (asked to stop meanwhile)", kStillStartingDeadline,
                 "removing it with podman rm --force --time 0");
    co_await podman_step(remove);
  } else if (!exited()) {
    // The container's PID 1, errand-relay, passes SIGTERM on to the agent.
    co_await podman_step(term);
    // The grace is the agent's: a container that has ended within it needs no SIGKILL, though
    // podman start may take a moment longer to notice.
    std::string status;
    const bool ended_by_term = co_await exited_within(grace);
    if (!ended_by_term) status = co_await container_status();
    if (status == "running") {
      warn_overrun("the agent's end after SIGTERM", grace,
                   "sending SIGKILL (podman kill --signal KILL)");
      co_await podman_step(sigkill);
    }
  }
  const bool ended_by_kill = co_await exited_within(kEndAfterKillDeadline);
  if (ended_by_kill) co_return std::nullopt;
  warn_overrun("podman start's end after the container was killed", kEndAfterKillDeadline,
               "removing it with podman rm --force --time 0");
  co_await podman_step(remove);
  const bool ended_by_removal = co_await exited_within(kEndAfterKillDeadline);
  if (ended_by_removal) co_return std::nullopt;
  warn_overrun("podman start's end after the container was removed", kEndAfterKillDeadline,
               "killing podman start's process group (pid " + std::to_string(running_.pid) +
                   ") with SIGKILL");
  // Not yet reaped (exited() is set on this strand right after the reaping), so the pid and its
  // group are still podman start's.
  ::kill(-running_.pid, SIGKILL);
  ::kill(running_.pid, SIGKILL);
  co_return std::nullopt;
}

void ContainerState::abandon() noexcept {
  try {
    asio::post(*pool_, [env = env_, name = name_] { remove_container(env, name); });
  } catch (...) {
  }
}

}  // namespace errand::podman
