#include "noop_process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <string>

namespace errand::bench::noop {

namespace asio = boost::asio;
using asio::use_awaitable;

NoopProcess::State::State(asio::any_io_executor executor, int fd)
    : strand(asio::make_strand(executor)),
      pidfd(strand, fd),
      ended(strand, asio::steady_timer::time_point::max()) {}

NoopProcess::NoopProcess(asio::any_io_executor executor, ChildHandles child,
                         std::shared_ptr<LoopbackRelay> relay)
    : state_(std::make_shared<State>(executor, child.pidfd)),
      pid_(child.pid),
      stdin_fd_(child.stdin_fd),
      stdout_fd_(child.stdout_fd),
      stderr_fd_(child.stderr_fd) {
  asio::co_spawn(state_->strand, watch(state_, pid_, std::move(relay)), asio::detached);
}

NoopProcess::~NoopProcess() {
  // The core stops a sandbox before dropping it; a child still running here is killed rather
  // than left behind.
  if (!state_->result) ::kill(-pid_, SIGKILL);
  for (const int fd : {stdin_fd_, stdout_fd_, stderr_fd_})
    if (fd >= 0) ::close(fd);
}

asio::awaitable<void> NoopProcess::watch(std::shared_ptr<State> state, int pid,
                                         std::shared_ptr<LoopbackRelay> relay) {
  boost::system::error_code ec;
  co_await state->pidfd.async_wait(asio::posix::stream_descriptor::wait_read,
                                   asio::redirect_error(use_awaitable, ec));
  int status = 0;
  ::waitpid(pid, &status, 0);
  // What the agent started in its group goes with it, as it would with a sandbox's PID 1.
  ::kill(-pid, SIGKILL);
  if (relay) relay->close();
  sdk::ExitInfo exit;
  if (WIFSIGNALED(status)) {
    exit.signal = WTERMSIG(status);
    exit.detail = "the agent was killed by signal " + std::to_string(*exit.signal);
  } else {
    exit.exit_code = WEXITSTATUS(status);
    exit.detail = "the agent exited with " + std::to_string(*exit.exit_code);
  }
  if (state->stop_requested) exit.detail = "stopped on request; " + exit.detail;
  exit.cleanup_complete = true;
  state->result = std::move(exit);
  state->ended.cancel();
  if (state->stop_deadline != nullptr) state->stop_deadline->cancel();
}

asio::awaitable<sdk::ExitInfo> NoopProcess::wait_on_strand(std::shared_ptr<State> state) {
  while (!state->result) {
    boost::system::error_code ignored;
    co_await state->ended.async_wait(asio::redirect_error(use_awaitable, ignored));
  }
  co_return *state->result;
}

asio::awaitable<sdk::ExitInfo> NoopProcess::stop_on_strand(std::shared_ptr<State> state, int pid,
                                                           std::chrono::milliseconds grace) {
  if (!state->result) {
    state->stop_requested = true;
    ::kill(-pid, SIGTERM);
    asio::steady_timer deadline(state->strand, grace);
    state->stop_deadline = &deadline;
    boost::system::error_code ignored;
    co_await deadline.async_wait(asio::redirect_error(use_awaitable, ignored));
    state->stop_deadline = nullptr;
    if (!state->result) ::kill(-pid, SIGKILL);
  }
  auto waiting = wait_on_strand(state);
  co_return co_await std::move(waiting);
}

asio::awaitable<sdk::ExitInfo> NoopProcess::wait() {
  // GCC 12 mishandles temporaries inside a co_await expression, so the work is named first.
  auto state = state_;
  auto work = wait_on_strand(state);
  co_return co_await asio::co_spawn(state->strand, std::move(work), use_awaitable);
}

asio::awaitable<sdk::ExitInfo> NoopProcess::stop(std::chrono::milliseconds grace) {
  auto state = state_;
  const int pid = pid_;
  auto work = stop_on_strand(state, pid, grace);
  co_return co_await asio::co_spawn(state->strand, std::move(work), use_awaitable);
}

}  // namespace errand::bench::noop
