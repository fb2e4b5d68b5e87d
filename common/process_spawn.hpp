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
  std::string program;  // argv[0] too; an absolute path unless search_path
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // the child's whole environment
  // Each parent fd and the number it gets in the child; every fd from close_from up is closed.
  std::vector<std::pair<int, int>> fds;
  int close_from = 3;
  std::string working_dir;   // empty: the parent's
  bool search_path = false;  // a program without a slash is looked up on the daemon's PATH
  // spawn_piped only: false gives the child this process's stderr instead of a pipe.
  bool pipe_stderr = true;
};

sdk::Result<pid_t> spawn_process(const SpawnRequest& request);

struct SpawnedProcess {
  pid_t pid = -1;
  int pidfd = -1;  // the caller's to close
};

// spawn_process, then a pidfd for the child, opened while it is still our unreaped child so its
// pid cannot have been reused. A child whose pidfd cannot be had is killed and reaped.
sdk::Result<SpawnedProcess> spawn_with_pidfd(const SpawnRequest& request);

struct PipedProcess {
  pid_t pid = -1;
  int pidfd = -1;
  int stdin_fd = -1;          // write end
  int stdout_fd = -1;         // read end
  int stderr_fd = -1;         // read end
  void close_all() noexcept;  // the pidfd and the three pipes
};

// spawn_with_pidfd with the child's stdin, stdout and stderr on three new pipes (request.fds
// adds to them; stderr stays this process's when request.pipe_stderr is false, and stderr_fd
// is -1); the parent's ends, close-on-exec, and the pidfd are the caller's to close.
sdk::Result<PipedProcess> spawn_piped(SpawnRequest request);

// fd moved to the lowest free number at or above floor, close-on-exec, the original closed; -1
// when fd was -1 or the move failed. Handing a child only fds above the numbers it gets means
// no dup2 lands an fd on itself (which would keep close-on-exec).
int move_fd_at_least(int fd, int floor);

}  // namespace errand::common
