#pragma once

// Where one job lives under the runner's state directory, and the name of its sandbox.
//
//   jobs/<id>/workspace   the job's tree, the sandbox's /workspace; removed when the job ends
//   jobs/<id>/state       the sandbox's /state (HOME is /state/home); removed with the workspace
//   jobs/<id>/record      what the backend records of the launch (bailey's policy.toml); kept
//   jobs/<id>/output.log  the job's output (job_log.hpp); kept for attaches and receipts

#include <filesystem>
#include <string>
#include <string_view>

namespace errand::remote {

struct JobPaths {
  std::filesystem::path root;
  std::filesystem::path workspace;
  std::filesystem::path state;
  std::filesystem::path record;
  std::filesystem::path log;
};

// The paths of the job with this id (is_job_id) under the runner's state directory.
JobPaths job_paths(const std::filesystem::path& runner_state_dir, std::string_view id);

// The sandbox's session id: "job-" and the id in lower case. Derived from the id alone, so a
// restarted runner names the same sandbox, and within what every backend accepts (bailey: 1 to
// 128 letters, digits, '-', '_' or '.'; podman and incus put it in a container's name, where
// lower case is the safe choice).
std::string job_sandbox_name(std::string_view id);

}  // namespace errand::remote
