#include "core/agent/host_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>

#include "common/process_spawn.hpp"

namespace errand::agent {

namespace asio = boost::asio;

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

sdk::Result<std::unique_ptr<HostProcess>> HostProcess::spawn(
    const std::vector<std::string>& argv, const EnvironmentList& environment,
    const std::filesystem::path& working_dir) {
  if (argv.empty() || argv.front().empty()) return sdk::make_error("no program to run was given");
  common::SpawnRequest request;
  request.program = argv.front();
  request.search_path = true;
  request.args.assign(argv.begin() + 1, argv.end());
  request.env = environment;
  request.working_dir = working_dir.string();
  auto spawned = common::spawn_piped(std::move(request));
  if (!spawned) return spawned.error();
  std::unique_ptr<HostProcess> process(new HostProcess());
  process->pid_ = spawned->pid;
  process->pidfd_ = spawned->pidfd;
  process->stdio_ = {spawned->stdin_fd, spawned->stdout_fd, spawned->stderr_fd};
  return process;
}

HostProcess::~HostProcess() {
  if (pid_ > 0 && status_ < 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close_fd(pidfd_);
  close_fd(stdio_.stdin_fd);
  close_fd(stdio_.stdout_fd);
  close_fd(stdio_.stderr_fd);
}

void HostProcess::close_stdin() {
  close_fd(stdio_.stdin_fd);
}

bool HostProcess::try_reap() {
  if (status_ >= 0) return true;
  int status = 0;
  const pid_t reaped = ::waitpid(pid_, &status, WNOHANG);
  if (reaped == pid_) {
    status_ = decode_status(status);
    return true;
  }
  if (reaped < 0 && errno == ECHILD) {
    // Someone else reaped it; all that is known is that it ended.
    status_ = 255;
    return true;
  }
  return false;
}

asio::awaitable<int> HostProcess::wait(asio::any_io_executor executor) {
  if (try_reap()) co_return status_;
  if (pidfd_ >= 0) {
    // A pidfd becomes readable when the process ends; duplicated so the descriptor object can
    // own (and close) its copy.
    asio::posix::stream_descriptor watch(executor, ::fcntl(pidfd_, F_DUPFD_CLOEXEC, 3));
    while (!try_reap()) {
      auto [ec] = co_await watch.async_wait(asio::posix::stream_descriptor::wait_read,
                                            asio::as_tuple(asio::use_awaitable));
      if (ec && ec != asio::error::interrupted) break;
    }
  }
  asio::steady_timer poll(executor);
  while (!try_reap()) {
    poll.expires_after(std::chrono::milliseconds(20));
    co_await poll.async_wait(asio::use_awaitable);
  }
  co_return status_;
}

asio::awaitable<int> HostProcess::stop(asio::any_io_executor executor,
                                       std::chrono::milliseconds grace) {
  if (try_reap()) co_return status_;
  ::kill(pid_, SIGTERM);
  asio::steady_timer poll(executor);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!try_reap() && std::chrono::steady_clock::now() < deadline) {
    poll.expires_after(std::chrono::milliseconds(10));
    co_await poll.async_wait(asio::use_awaitable);
  }
  if (!try_reap()) ::kill(pid_, SIGKILL);
  co_return co_await wait(executor);
}

EnvironmentList minimal_host_environment(const std::filesystem::path& home) {
  const char* path = std::getenv("PATH");
  return {{"PATH", path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin"},
          {"HOME", home.string()},
          {"LANG", "C.UTF-8"}};
}

}  // namespace errand::agent
