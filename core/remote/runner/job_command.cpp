#include "core/remote/runner/job_command.hpp"

#include "core/remote/quoted_text.hpp"
#include "core/remote/snapshot/manifest_rules.hpp"

namespace errand::remote {

sdk::Result<void> check_job_workdir(std::string_view workdir) {
  if (workdir.empty()) return {};
  if (const auto problem = manifest_path_problem(workdir); !problem.empty())
    return sdk::refusal("the workdir " + quote_text(workdir) + " is refused: " + problem);
  return {};
}

std::string job_directory_inside(std::string_view workdir) {
  std::string dir(kJobWorkspaceInside);
  if (!workdir.empty()) dir += "/" + std::string(workdir);
  return dir;
}

std::vector<std::string> job_launch_argv(std::string_view workdir,
                                         const std::vector<std::string>& command) {
  // $0 names the shell in its own messages; $1 is the directory; the rest is the command.
  std::vector<std::string> argv{std::string(kJobStarter), "-c",
                                "cd -P -- \"$1\" && shift && exec \"$@\"", "errand-job",
                                job_directory_inside(workdir)};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::pair<std::string, std::string>> job_launch_env(
    const std::map<std::string, std::string>& job_env,
    const std::vector<std::pair<std::string, std::string>>& runner_env) {
  auto merged = job_env;
  for (const auto& [name, value] : runner_env) merged[name] = value;
  return {merged.begin(), merged.end()};
}

}  // namespace errand::remote
