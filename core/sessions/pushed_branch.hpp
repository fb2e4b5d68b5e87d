#pragma once

// Which branch a session's project is on and where its `origin` points, read from the files in
// the project's .git directory. The daemon never runs git on the agent's repository: a
// repository's configuration can name programs git runs (core.fsmonitor, hooks), and this one
// was written by the agent. The files are read beneath the project with no link followed.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <string_view>

namespace errand::sessions {

struct ProjectBranch {
  std::string branch;      // refs/heads/<branch> that HEAD names
  std::string origin_url;  // remote.origin.url, as written
};

// Refused with a sentence when the project is not a git repository, HEAD is detached (no branch
// to open a pull request from), or there is no `origin` remote.
sdk::Result<ProjectBranch> read_project_branch(const std::filesystem::path& project);

// The branch HEAD's text names ("ref: refs/heads/x\n"), or a refusal saying why there is none.
sdk::Result<std::string> branch_of_head(std::string_view head);

// remote.<name>.url from a git configuration file's text; empty when there is none.
std::string remote_url(std::string_view config, std::string_view remote);

}  // namespace errand::sessions
