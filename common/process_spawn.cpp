#include "common/process_spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

namespace errand::common {

using sdk::make_error;

namespace {

std::vector<char*> pointers(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& s : items) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

int move_fd_at_least(int fd, int floor) {
  if (fd < 0) return -1;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, floor);
  ::close(fd);
  return moved;
}

sdk::Result<pid_t> spawn_process(const SpawnRequest& request) {
  std::vector<std::string> argv{request.program};
  argv.insert(argv.end(), request.args.begin(), request.args.end());
  std::vector<std::string> envp;
  for (const auto& [k, v] : request.env) envp.push_back(k + "=" + v);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  for (const auto& [from, to] : request.fds) posix_spawn_file_actions_adddup2(&actions, from, to);
  posix_spawn_file_actions_addclosefrom_np(&actions, request.close_from);
  if (!request.working_dir.empty())
    posix_spawn_file_actions_addchdir_np(&actions, request.working_dir.c_str());
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  auto a = pointers(argv);
  auto e = pointers(envp);
  pid_t pid = -1;
  const int rc =
      request.search_path
          ? ::posix_spawnp(&pid, request.program.c_str(), &actions, &attr, a.data(), e.data())
          : ::posix_spawn(&pid, request.program.c_str(), &actions, &attr, a.data(), e.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return make_error("cannot run " + request.program + ": " + std::strerror(rc),
                      rc == ENOENT ? sdk::Error::Kind::not_found : sdk::Error::Kind::unavailable);
  return pid;
}

sdk::Result<SpawnedProcess> spawn_with_pidfd(const SpawnRequest& request) {
  auto pid = spawn_process(request);
  if (!pid) return pid.error();
  SpawnedProcess p{*pid, static_cast<int>(::syscall(SYS_pidfd_open, *pid, 0))};
  if (p.pidfd < 0) {
    const int e = errno;
    ::kill(p.pid, SIGKILL);
    while (::waitpid(p.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return make_error("pidfd_open on " + request.program + " failed: " + std::strerror(e));
  }
  return p;
}

void PipedProcess::close_all() noexcept {
  for (int* fd : {&pidfd, &stdin_fd, &stdout_fd, &stderr_fd})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

sdk::Result<PipedProcess> spawn_piped(SpawnRequest request) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
      (request.pipe_stderr && ::pipe2(err, O_CLOEXEC) != 0)) {
    const int e = errno;
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) ::close(fd);
    return make_error("could not make the pipes for " + request.program + ": " + std::strerror(e));
  }
  // Above 2, so no dup2 in the child lands a pipe on itself and keeps close-on-exec.
  for (int* fd : {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1]})
    *fd = move_fd_at_least(*fd, 3);
  // Without a stderr pipe fd 2 is left alone, so the child has this process's.
  if (request.pipe_stderr) request.fds.insert(request.fds.begin(), {err[1], 2});
  request.fds.insert(request.fds.begin(), {{in[0], 0}, {out[1], 1}});
  auto spawned = spawn_with_pidfd(request);
  ::close(in[0]);
  ::close(out[1]);
  if (err[1] >= 0) ::close(err[1]);
  if (!spawned) {
    for (int fd : {in[1], out[0], err[0]})
      if (fd >= 0) ::close(fd);
    return spawned.error();
  }
  return PipedProcess{spawned->pid, spawned->pidfd, in[1], out[0], err[0]};
}

}  // namespace errand::common
