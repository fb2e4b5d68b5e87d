#include "tests/fakes/github/bare_repository.hpp"

#include "common/process_spawn.hpp"
#include "common/unique_fd.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace errand::fakes {

std::vector<std::pair<std::string, std::string>> git_environment(
    const std::filesystem::path& home) {
  return {{"PATH", "/usr/bin:/bin"},
          {"HOME", home.string()},
          {"GIT_CONFIG_NOSYSTEM", "1"},
          {"LC_ALL", "C"}};
}

GitRun run_git(const std::vector<std::string>& args, const std::filesystem::path& home) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return {};
  common::UniqueFd read_end(ends[0]);
  common::UniqueFd write_end(ends[1]);
  common::UniqueFd nothing(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  common::SpawnRequest request;
  request.program = kGitProgram;
  request.args = args;
  request.env = git_environment(home);
  request.fds = {{nothing.get(), 0}, {write_end.get(), 1}, {write_end.get(), 2}};
  auto pid = common::spawn_process(request);
  write_end.reset();
  GitRun run;
  if (!pid) {
    run.output = pid.error().message;
    return run;
  }
  char chunk[4096];
  while (true) {
    const ssize_t n = ::read(read_end.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    run.output.append(chunk, static_cast<std::size_t>(n));
  }
  int status = 0;
  while (::waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

void init_bare_repository(const std::filesystem::path& bare, const std::filesystem::path& home) {
  const auto init = run_git({"init", "--quiet", "--bare", "--initial-branch=main", bare}, home);
  if (init.exit_code != 0)
    throw std::runtime_error("fake GitHub: git init --bare " + bare.string() +
                             " failed: " + init.output);
  // http-backend lets an authenticated user push only where this is set or REMOTE_USER is;
  // setting it says so outright instead of leaning on that default.
  const auto enable =
      run_git({"--git-dir=" + bare.string(), "config", "http.receivepack", "true"}, home);
  if (enable.exit_code != 0)
    throw std::runtime_error("fake GitHub: enabling pushes to " + bare.string() +
                             " failed: " + enable.output);
}

std::optional<std::string> branch_commit(const std::filesystem::path& bare,
                                         const std::string& branch,
                                         const std::filesystem::path& home) {
  const auto shown = run_git(
      {"--git-dir=" + bare.string(), "show-ref", "--verify", "--hash", "refs/heads/" + branch},
      home);
  if (shown.exit_code != 0) return std::nullopt;
  auto commit = shown.output.substr(0, shown.output.find('\n'));
  if (commit.empty()) return std::nullopt;
  return commit;
}

std::size_t commits_ahead(const std::filesystem::path& bare, const std::string& base_commit,
                          const std::string& head_commit, const std::filesystem::path& home) {
  const auto counted = run_git(
      {"--git-dir=" + bare.string(), "rev-list", "--count", base_commit + ".." + head_commit},
      home);
  if (counted.exit_code != 0) return 0;
  return std::stoul(counted.output);
}

}  // namespace errand::fakes
