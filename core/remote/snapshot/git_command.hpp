#pragma once

// git as the caller's file selection runs it: the program found on the caller's PATH (a file
// selection asks git because only git knows exactly which files it would commit, and what a
// gitignore pattern means), run with the caller's environment, its stdout read whole.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::remote {

// The first executable regular file named "git" in the directories of $PATH; nothing when there
// is none (or PATH is unset).
std::optional<std::filesystem::path> find_git_on_path();

struct GitAnswer {
  int exit_code = -1;
  std::string out;
  std::string err_tail;  // the last few KiB it wrote to stderr
};

// git run with args, whatever its exit code; an error only when it could not be run, ran past
// its deadline (minutes, for a large tree) or listed more than a manifest could ever hold.
sdk::Result<GitAnswer> run_git(const std::filesystem::path& git, std::vector<std::string> args);

// The '\0'-separated fields of `git ... -z` output, without empty ones.
std::vector<std::string> split_nul_separated(std::string_view text);

}  // namespace errand::remote
