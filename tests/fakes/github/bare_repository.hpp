#pragma once

// The fake's repositories are real bare git repositories, read and made with the system's git:
// a branch GitHub reports is a ref a push really made.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace errand::fakes {

// Debian's git package puts it here; http-backend is in its exec path.
inline constexpr const char* kGitProgram = "/usr/bin/git";

// The environment every git the fake starts gets: no system or user configuration leaks in.
std::vector<std::pair<std::string, std::string>> git_environment(const std::filesystem::path& home);

struct GitRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
GitRun run_git(const std::vector<std::string>& args, const std::filesystem::path& home);

// `git init --bare` with main as its first branch and receive-pack enabled over http. Throws
// std::runtime_error with git's words when it fails.
void init_bare_repository(const std::filesystem::path& bare, const std::filesystem::path& home);

// The commit refs/heads/<branch> names; nothing when there is no such branch.
std::optional<std::string> branch_commit(const std::filesystem::path& bare,
                                         const std::string& branch,
                                         const std::filesystem::path& home);

// How many commits head has that base lacks.
std::size_t commits_ahead(const std::filesystem::path& bare, const std::string& base_commit,
                          const std::string& head_commit, const std::filesystem::path& home);

}  // namespace errand::fakes
