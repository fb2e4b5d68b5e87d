#include "core/remote/snapshot/git_command.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "common/program_exchange.hpp"
#include "core/remote/snapshot/manifest.hpp"

namespace errand::remote {
namespace {

// Listing a large work tree, with its untracked files, can take git minutes on a cold cache.
constexpr std::chrono::minutes kGitDeadline{10};
// Room for every path a manifest may hold, each a path of a typical length and its separator.
constexpr std::size_t kGitMaxOutput = kManifestMaxEntries * 256;

bool is_executable_git_candidate(const std::filesystem::path& file) {
  struct stat status {};
  return ::stat(file.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
         ::access(file.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::filesystem::path> find_git_on_path() {
  const char* search_path = std::getenv("PATH");
  if (search_path == nullptr) return std::nullopt;
  const std::string_view directories(search_path);
  for (std::size_t start = 0; start <= directories.size();) {
    const auto colon = directories.find(':', start);
    const auto end = colon == std::string_view::npos ? directories.size() : colon;
    const auto directory = directories.substr(start, end - start);
    start = end + 1;
    // An empty entry means the current directory, which a program run on the caller's behalf
    // must not be picked from.
    if (directory.empty() || directory.front() != '/') continue;
    auto candidate = std::filesystem::path(directory) / "git";
    if (is_executable_git_candidate(candidate)) return candidate;
  }
  return std::nullopt;
}

sdk::Result<GitAnswer> run_git(const std::filesystem::path& git, std::vector<std::string> args) {
  common::ProgramExchange exchange;
  exchange.program = git.string();
  exchange.args = std::move(args);
  exchange.deadline = kGitDeadline;
  exchange.max_output = kGitMaxOutput;
  auto answer = common::exchange_with_program(exchange);
  if (!answer) return answer.error();
  return GitAnswer{answer->exit_code, std::move(answer->out), std::move(answer->err_tail)};
}

std::vector<std::string> split_nul_separated(std::string_view text) {
  std::vector<std::string> fields;
  for (std::size_t start = 0; start < text.size();) {
    const auto nul = text.find('\0', start);
    const auto end = nul == std::string_view::npos ? text.size() : nul;
    if (end > start) fields.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return fields;
}

}  // namespace errand::remote
