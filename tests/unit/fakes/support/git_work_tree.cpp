#include "tests/unit/fakes/support/git_work_tree.hpp"

#include <stdexcept>

namespace errand::test {

GitWorkTree::GitWorkTree() : tree_(dir_ / "tree") {
  std::filesystem::create_directories(tree_);
  const auto made = git({"init", "--quiet", "--initial-branch=main"});
  if (made.exit_code != 0) throw std::runtime_error("git init failed: " + made.err);
}

Finished GitWorkTree::git(std::vector<std::string> args) const {
  args.insert(args.begin(), {"/usr/bin/git", "-C", tree_.string()});
  return run_to_end(std::move(args),
                    {"PATH=/usr/bin:/bin", "HOME=" + dir_.path().string(), "GIT_CONFIG_NOSYSTEM=1",
                     "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=Test Author",
                     "GIT_AUTHOR_EMAIL=author@example.com", "GIT_COMMITTER_NAME=Test Author",
                     "GIT_COMMITTER_EMAIL=author@example.com", "LC_ALL=C"},
                    dir_.path());
}

std::string GitWorkTree::commit(const std::string& file, const std::string& content,
                                const std::string& message) const {
  write_file(tree_ / file, content);
  const auto added = git({"add", file});
  const auto committed = git({"commit", "--quiet", "-m", message});
  if (added.exit_code != 0 || committed.exit_code != 0)
    throw std::runtime_error("git commit failed: " + added.err + committed.err);
  const auto head = git({"rev-parse", "HEAD"});
  return head.out.substr(0, head.out.find('\n'));
}

}  // namespace errand::test
