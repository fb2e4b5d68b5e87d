#pragma once

// The lists of paths git gives the file selection: what a work tree would commit, and what a
// .errandignore leaves outside git. Paths are relative to the directory asked about, as git
// writes them (bytes, '/'-separated); a directory git does not look into (a submodule, a nested
// repository) is listed as one path, ending in '/' when it is untracked.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::remote {

// The top of the git work tree root is in (root itself or a directory above it); nothing when it
// is in none. A refusal when it seems to be in one (a ".git" in it or above it) that git cannot
// read, or git is needed but not on PATH: sending it as if it were no repository would send
// what its .gitignore meant to keep back.
sdk::Result<std::optional<std::filesystem::path>> find_git_worktree(
    const std::optional<std::filesystem::path>& git, const std::filesystem::path& root);

struct GitWorktreeFiles {
  std::vector<std::string> tracked;    // in the index, whether or not still on disk
  std::vector<std::string> untracked;  // not ignored by .gitignore, info/exclude, excludesFile
};

// The files under root that git would commit there: tracked ones and untracked ones it does not
// ignore (`git ls-files` run in root, which lists only root's subtree, relative to root).
sdk::Result<GitWorktreeFiles> list_git_worktree(const std::filesystem::path& git,
                                                const std::filesystem::path& root);

// The files under root (in no git work tree) that the ignore files named ignore_file_name in it
// and its subdirectories do not ignore, read with gitignore's own rules by git itself through a
// throw-away repository made for the purpose and removed afterwards. No other ignore file (no
// .gitignore, no user-wide excludes) applies.
sdk::Result<std::vector<std::string>> list_not_ignored(const std::filesystem::path& git,
                                                       const std::filesystem::path& root,
                                                       std::string_view ignore_file_name);

}  // namespace errand::remote
