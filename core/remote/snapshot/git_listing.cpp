#include "core/remote/snapshot/git_listing.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/remote/snapshot/git_command.hpp"

namespace errand::remote {
namespace {

// The directory, root or one above it, that holds a ".git" (a repository or a work tree's link
// to one), as git would look for it.
std::optional<std::filesystem::path> directory_with_git_marker(const std::filesystem::path& root) {
  for (auto directory = root;; directory = directory.parent_path()) {
    std::error_code ignored;
    if (std::filesystem::exists(std::filesystem::symlink_status(directory / ".git", ignored)))
      return directory;
    if (directory.parent_path() == directory) return std::nullopt;
  }
}

std::string git_stderr_trimmed(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return std::string(text);
}

sdk::Result<std::vector<std::string>> run_git_listing(const std::filesystem::path& git,
                                                      std::vector<std::string> args,
                                                      std::string_view what) {
  auto answer = run_git(git, std::move(args));
  if (!answer)
    return sdk::make_error(fmt::format("cannot list {}: {}", what, answer.error().message));
  if (answer->exit_code != 0)
    return sdk::make_error(fmt::format("git could not list {} (exit {}): {}", what,
                                       answer->exit_code, git_stderr_trimmed(answer->err_tail)));
  return split_nul_separated(answer->out);
}

sdk::Result<std::filesystem::path> make_scratch_directory() {
  std::error_code error;
  const auto parent = std::filesystem::temp_directory_path(error);
  if (error) return sdk::make_error("no temporary directory: " + error.message());
  std::string pattern = (parent / "errand-ignore-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return sdk::make_error(fmt::format("cannot make a temporary directory under {}: {}",
                                       parent.string(), std::strerror(errno)));
  return std::filesystem::path(pattern);
}

// Removes a scratch directory, with what git put in it, however the listing ends.
class ScratchDirectoryRemoval {
 public:
  explicit ScratchDirectoryRemoval(std::filesystem::path directory)
      : directory_(std::move(directory)) {}
  ScratchDirectoryRemoval(const ScratchDirectoryRemoval&) = delete;
  ScratchDirectoryRemoval& operator=(const ScratchDirectoryRemoval&) = delete;
  ~ScratchDirectoryRemoval() {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }

 private:
  std::filesystem::path directory_;
};

}  // namespace

sdk::Result<std::optional<std::filesystem::path>> find_git_worktree(
    const std::optional<std::filesystem::path>& git, const std::filesystem::path& root) {
  const auto marked = directory_with_git_marker(root);
  if (!git) {
    if (!marked) return std::optional<std::filesystem::path>();
    return sdk::refusal(fmt::format(
        "{} is in a git repository ({} has a .git), but git is not on PATH to say which files "
        "it would commit; install git or put it on PATH",
        root.string(), marked->string()));
  }
  auto answer = run_git(*git, {"-C", root.string(), "rev-parse", "--show-toplevel"});
  if (!answer) return answer.error();
  if (answer->exit_code == 0) {
    std::string top = answer->out;
    if (!top.empty() && top.back() == '\n') top.pop_back();
    return std::optional<std::filesystem::path>(std::filesystem::path(top));
  }
  if (!marked) return std::optional<std::filesystem::path>();
  return sdk::refusal(fmt::format(
      "{} looks like part of a git repository ({} has a .git), but git cannot list its work "
      "tree there: {}",
      root.string(), marked->string(), git_stderr_trimmed(answer->err_tail)));
}

sdk::Result<GitWorktreeFiles> list_git_worktree(const std::filesystem::path& git,
                                                const std::filesystem::path& root) {
  // Two runs rather than one, so the caller can tell a tracked file deleted in the work tree
  // (left out) from an untracked one that vanished while the tree was being read (refused).
  auto tracked = run_git_listing(git, {"-C", root.string(), "ls-files", "-z", "--cached"},
                                 "the tracked files under " + root.string());
  if (!tracked) return tracked.error();
  auto untracked = run_git_listing(
      git, {"-C", root.string(), "ls-files", "-z", "--others", "--exclude-standard"},
      "the untracked files under " + root.string());
  if (!untracked) return untracked.error();
  return GitWorktreeFiles{std::move(*tracked), std::move(*untracked)};
}

sdk::Result<std::vector<std::string>> list_not_ignored(const std::filesystem::path& git,
                                                       const std::filesystem::path& root,
                                                       std::string_view ignore_file_name) {
  auto git_dir = make_scratch_directory();
  if (!git_dir) return git_dir.error();
  const ScratchDirectoryRemoval removal(*git_dir);
  // No template: nothing (hooks, an info/exclude) but the bare minimum a repository needs.
  auto made = run_git(git, {"init", "-q", "--bare", "--template=", git_dir->string()});
  if (!made) return made.error();
  if (made->exit_code != 0)
    return sdk::make_error(fmt::format("git could not make a scratch repository in {}: {}",
                                       git_dir->string(), git_stderr_trimmed(made->err_tail)));
  return run_git_listing(
      git,
      {"--git-dir=" + git_dir->string(), "--work-tree=" + root.string(), "-C", root.string(),
       "ls-files", "-z", "--others", "--exclude-per-directory=" + std::string(ignore_file_name)},
      fmt::format("the files under {} that its {} lets through", root.string(), ignore_file_name));
}

}  // namespace errand::remote
