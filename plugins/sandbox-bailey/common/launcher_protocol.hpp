#pragma once

// How the plugin and its launcher talk. The plugin starts `errand-bailey run <policy.toml>` with
//   fd 0-2  the agent's stdio (the ACP channel)
//   fd 3    the read end of a pipe whose write end only the daemon holds: when the daemon dies
//           the launcher sees end-of-file and kills the sandbox, whichever thread spawned it
//   fd 4    the report pipe, one line per event:
//             running <pid of the sandbox's first process, as the host sees it>
//             error <what failed, as a sentence>
//             exit code <n> | exit signal <n>
//   fd 5    the agent's syscall filter, compiled once by the plugin, in a sealed memory file
//           (filter_handoff.hpp)
// and the values of the policy's [env] pass names as its whole environment.

#include <optional>
#include <string>
#include <string_view>

namespace errand::bailey {

inline constexpr int kLifelineFd = 3;
inline constexpr int kReportFd = 4;
inline constexpr int kFilterFd = 5;

struct LauncherEvent {
  enum class Kind { running, error, exit_code, exit_signal };
  Kind kind = Kind::error;
  int number = 0;    // pid, exit code or signal
  std::string text;  // with error
};

std::optional<LauncherEvent> parse_launcher_line(std::string_view line);
std::string format_running(int pid);
std::string format_error(std::string_view what);
std::string format_exit_code(int code);
std::string format_exit_signal(int signal);

}  // namespace errand::bailey
