#include "core/agent/host_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace errand::agent {

namespace asio = boost::asio;

namespace {

struct Pipe {
  int read = -1, write = -1;
};

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
  Pipe in, out, err;
  for (Pipe* p : {&in, &out, &err}) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      const std::string why = std::strerror(errno);
      for (Pipe* q : {&in, &out, &err}) {
        close_fd(q->read);
        close_fd(q->write);
      }
      return sdk::make_error("cannot create a pipe for " + argv.front() + ": " + why);
    }
    p->read = fds[0];
    p->write = fds[1];
  }
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : environment) env_strings.push_back(name + "=" + value);
  std::vector<char*> args, env;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (auto& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
  if (!working_dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // The child starts with default signal handling and an empty mask, whatever the daemon set.
  sigset_t all, none;
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  pid_t pid = -1;
  const int failed = ::posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  if (failed != 0) {
    close_fd(in.write);
    close_fd(out.read);
    close_fd(err.read);
    return sdk::make_error(
        "cannot run " + argv.front() + ": " + std::strerror(failed),
        failed == ENOENT ? sdk::Error::Kind::not_found : sdk::Error::Kind::failed);
  }
  std::unique_ptr<HostProcess> process(new HostProcess());
  process->pid_ = pid;
  process->stdio_ = {in.write, out.read, err.read};
  process->pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
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
