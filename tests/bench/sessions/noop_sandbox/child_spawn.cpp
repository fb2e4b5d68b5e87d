#include "child_spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

namespace errand::bench::noop {

namespace {

std::vector<char*> pointers(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& item : items) out.push_back(item.data());
  out.push_back(nullptr);
  return out;
}

sdk::Error failure(const std::string& what, int error) {
  return sdk::make_error(what + ": " + std::strerror(error), sdk::Error::Kind::unavailable);
}

}  // namespace

sdk::Result<ChildHandles> spawn_child(const std::filesystem::path& program,
                                      std::vector<std::string> argv, std::vector<std::string> env,
                                      const std::filesystem::path& working_dir) {
  // [0] is the child's end, [1] the daemon's, for each of stdin, stdout, stderr.
  std::array<std::array<int, 2>, 3> ends{};
  for (std::size_t i = 0; i < ends.size(); ++i) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      const int error = errno;
      for (std::size_t j = 0; j < i; ++j)
        for (const int fd : ends[j]) ::close(fd);
      return failure("could not make the agent's pipes", error);
    }
    ends[i] = i == 0 ? std::array<int, 2>{fds[0], fds[1]} : std::array<int, 2>{fds[1], fds[0]};
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  for (int i = 0; i < 3; ++i) posix_spawn_file_actions_adddup2(&actions, ends[i][0], i);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  // A session of its own, so stopping the group reaches whatever the agent started.
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
  auto args = pointers(argv);
  auto envp = pointers(env);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (const auto& pair : ends) ::close(pair[0]);
  if (rc != 0) {
    for (const auto& pair : ends) ::close(pair[1]);
    return failure("could not start " + program.string(), rc);
  }
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    const int error = errno;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    for (const auto& pair : ends) ::close(pair[1]);
    return failure("could not watch the agent's process", error);
  }
  return ChildHandles{pid, pidfd, ends[0][1], ends[1][1], ends[2][1]};
}

}  // namespace errand::bench::noop
