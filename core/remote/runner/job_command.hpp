#pragma once

// What the sandbox is asked to run for a job: the caller's command, started in its workdir.
//
// Every backend shows LaunchSpec::project_dir to the sandbox at /workspace (sandbox_backend.hpp;
// bailey binds it there, and starts its command in /workspace). The workdir is reached by a
// shell inside the sandbox, which changes to /workspace/<workdir> and then execs the command,
// so the command is the sandbox's main process itself (it gets the signals, its status is the
// job's) and is found on the sandbox's PATH, as a command typed there would be. The shell, not
// `env -C`, because env takes a leading NAME=VALUE argument as an assignment, and a caller's
// command is passed on exactly.

#include <errand/sdk/result.hpp>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::remote {

// Where the sandbox sees the workspace.
inline constexpr std::string_view kJobWorkspaceInside = "/workspace";
// The program that starts a job's command: the host's own shell, which every backend's
// sandbox shows read-only (bailey binds /bin and /usr).
inline constexpr std::string_view kJobStarter = "/bin/sh";

// Refused: an absolute workdir, or one with an empty, "." or ".." component or a NUL. Empty
// means the workspace itself.
sdk::Result<void> check_job_workdir(std::string_view workdir);

// /workspace, or /workspace/<workdir>.
std::string job_directory_inside(std::string_view workdir);

// The argv the sandbox runs for command (which must not be empty) in workdir.
std::vector<std::string> job_launch_argv(std::string_view workdir,
                                         const std::vector<std::string>& command);

// The job's environment: the caller's variables, then the runner's own (its egress settings
// and stand-ins), which win where a name is in both. Sorted by name.
std::vector<std::pair<std::string, std::string>> job_launch_env(
    const std::map<std::string, std::string>& job_env,
    const std::vector<std::pair<std::string, std::string>>& runner_env);

}  // namespace errand::remote
