#include "plugins/sandbox-podman/impl/podman_process.hpp"

#include <sys/wait.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>

#include "common/pool_work.hpp"

namespace errand::podman {

using asio::use_awaitable;

namespace {

constexpr std::chrono::milliseconds kRemoveTimeout{60000};

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
      run_podman(env, {"--log-level=error", "rm", "--force", "--ignore", name}, kRemoveTimeout);
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
    // podman stop sends the stop signal, waits grace (whole seconds, at least one), then
    // SIGKILL; podman start then ends and watch() removes what is left.
    const auto seconds = std::to_string(std::max<long long>(
        1, std::chrono::duration_cast<std::chrono::seconds>(grace + std::chrono::milliseconds(999))
               .count()));
    auto env = env_;
    auto name = name_;
    auto stopping = [env, name, seconds] {
      auto out = run_podman(env, {"--log-level=error", "stop", "--ignore", "--time", seconds, name},
                            kRemoveTimeout);
      return out && out->exit_code == 0 ? std::string()
             : out                      ? failure_text(*out)
                                        : out.error().message;
    };
    const std::string failed = co_await common::run_on_pool(*pool_, std::move(stopping));
    if (!failed.empty()) log_->warn("podman stop {}: {}", name_, failed);
  }
  co_return co_await finished();
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
