#pragma once

// Starting errand-bailey from the multi-threaded daemon. posix_spawn does nothing between its
// fork and its exec but the fd moves it is told to make, so no lock another thread held can be
// inherited; everything else happens in the single-threaded launcher.

#include <sys/types.h>

#include <errand/sdk/result.hpp>
#include <string>
#include <utility>
#include <vector>

namespace errand::bailey {

struct LauncherHandles {
  pid_t pid = -1;
  int pidfd = -1;
  int stdin_fd = -1;   // write end: the agent's stdin
  int stdout_fd = -1;  // read end
  int stderr_fd = -1;  // read end
  int report_fd = -1;  // read end of the launcher's report pipe
  int lifeline_fd = -1;
  void close_all() noexcept;
};

// The environment is exactly env: nothing of the daemon's own is passed. filter_fd is the sealed
// syscall filter (filter_handoff.hpp), handed over as fd 5 and left open here.
sdk::Result<LauncherHandles> spawn_launcher(
    const std::string& launcher, const std::vector<std::string>& args,
    const std::vector<std::pair<std::string, std::string>>& env, int filter_fd);

// Runs `errand-bailey doctor --machine` to completion and returns what it printed. Blocking.
sdk::Result<std::string> run_doctor(const std::string& launcher,
                                    const std::vector<std::pair<std::string, std::string>>& env);

// The kernel's start time of a process (field 22 of /proc/<pid>/stat), to tell a process from a
// later one that reused its pid; 0 when the process is gone.
unsigned long long process_start_time(pid_t pid);

}  // namespace errand::bailey
