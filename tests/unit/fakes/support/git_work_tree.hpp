#pragma once

// A git work tree a test commits in and pushes from with the system's git, as a developer
// would: its own HOME and identity, no terminal prompt, no system configuration.

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

#include <string>
#include <vector>

namespace errand::test {

class GitWorkTree {
 public:
  // A fresh `git init` on branch main under its own temporary directory.
  GitWorkTree();
  // Runs git with args in the work tree.
  Finished git(std::vector<std::string> args) const;
  // Writes file and commits it; returns the new commit.
  std::string commit(const std::string& file, const std::string& content,
                     const std::string& message) const;
  const std::filesystem::path& path() const noexcept { return tree_; }

 private:
  TempDir dir_;
  std::filesystem::path tree_;
};

}  // namespace errand::test
