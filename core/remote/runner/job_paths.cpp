#include "core/remote/runner/job_paths.hpp"

#include <cctype>

namespace errand::remote {

JobPaths job_paths(const std::filesystem::path& runner_state_dir, std::string_view id) {
  JobPaths paths;
  paths.root = runner_state_dir / "jobs" / std::string(id);
  paths.workspace = paths.root / "workspace";
  paths.state = paths.root / "state";
  paths.record = paths.root / "record";
  paths.log = paths.root / "output.log";
  return paths;
}

std::string job_sandbox_name(std::string_view id) {
  std::string name = "job-";
  for (const char c : id) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace errand::remote
