#pragma once

// Starting a program from a multi-threaded process. posix_spawn does nothing between its fork
// and its exec but the fd moves it is told to make, so no lock another thread held can be
// inherited. The child gets exactly the environment and the fds it is given, default signal
// handling with nothing blocked, and a process group of its own, so a terminal's ^C meant for
// the daemon does not reach it.

#include <sys/types.h>

#include <errand/sdk/result.hpp>
#include <string>
#include <utility>
#include <vector>

namespace errand::common {

struct SpawnRequest {
  std::string program;  // an absolute path; argv[0] is the same
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // the child's whole environment
  // Each parent fd and the number it gets in the child; every fd from close_from up is closed.
  std::vector<std::pair<int, int>> fds;
  int close_from = 3;
  std::string working_dir;  // empty: the parent's
};

sdk::Result<pid_t> spawn_process(const SpawnRequest& request);

struct SpawnedProcess {
  pid_t pid = -1;
  int pidfd = -1;  // the caller's to close
};

// spawn_process, then a pidfd for the child, opened while it is still our unreaped child so its
// pid cannot have been reused. A child whose pidfd cannot be had is killed and reaped.
sdk::Result<SpawnedProcess> spawn_with_pidfd(const SpawnRequest& request);

// fd moved to the lowest free number at or above floor, close-on-exec, the original closed; -1
// when fd was -1 or the move failed. Handing a child only fds above the numbers it gets means
// no dup2 lands an fd on itself (which would keep close-on-exec).
int move_fd_at_least(int fd, int floor);

}  // namespace errand::common
