#include "core/agent/program_location.hpp"

#include <pwd.h>
#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

namespace errand::agent {

namespace fs = std::filesystem;

namespace {

bool is_executable_file(const fs::path& candidate) {
  std::error_code ec;
  return fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0;
}

// Where Node's module lookup from a file inside a package ends: the first node_modules on the
// way down from the root.
std::optional<fs::path> outermost_node_modules(const fs::path& file) {
  fs::path prefix;
  for (const auto& part : file) {
    prefix /= part;
    if (part == "node_modules") return prefix;
  }
  return std::nullopt;
}

// The path with every symlink resolved where it exists, else as written, for comparisons.
fs::path comparable(const fs::path& path) {
  std::error_code ec;
  auto real = fs::weakly_canonical(path, ec);
  if (ec) real = path.lexically_normal();
  // "/home/errand/" and "/home/errand" are one directory.
  if (!real.has_filename() && real.has_relative_path()) real = real.parent_path();
  return real;
}

bool within(const fs::path& inner, const fs::path& outer) {
  auto [end, ignored] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return end == outer.end();
}

}  // namespace

std::optional<fs::path> find_program(std::string_view program, std::string_view search_path) {
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string_view::npos) {
    fs::path given(program);
    return is_executable_file(given) ? std::optional<fs::path>(fs::absolute(given)) : std::nullopt;
  }
  while (true) {
    const auto colon = search_path.find(':');
    const auto dir = search_path.substr(0, colon);
    // An empty entry means the working directory, which the daemon never relies on.
    if (!dir.empty() && dir.front() == '/') {
      fs::path candidate = fs::path(dir) / fs::path(program);
      if (is_executable_file(candidate)) return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    search_path.remove_prefix(colon + 1);
  }
}

std::optional<std::string> missing_interpreter(const fs::path& program,
                                               std::string_view search_path) {
  std::ifstream in(program, std::ios::binary);
  std::string line;
  // The kernel reads at most this much of the line; a longer one is no script it would run.
  constexpr std::size_t kLongestLine = 256;
  if (!in || in.get() != '#' || in.get() != '!') return std::nullopt;
  std::getline(in, line);
  if (line.size() > kLongestLine) return std::nullopt;
  std::istringstream words(line);
  std::string interpreter;
  words >> interpreter;
  if (interpreter.empty()) return std::nullopt;
  if (fs::path(interpreter).filename() != "env")
    return is_executable_file(interpreter) ? std::nullopt : std::optional(interpreter);
  // env's own options (-S) and assignments come before the program it runs.
  std::string word;
  while (words >> word)
    if (!word.starts_with('-') && word.find('=') == std::string::npos)
      return find_program(word, search_path) ? std::nullopt : std::optional(word);
  return std::nullopt;
}

std::vector<fs::path> install_directories(const fs::path& found) {
  std::vector<fs::path> dirs{found.parent_path()};
  std::error_code ec;
  const fs::path real = fs::canonical(found, ec);
  const auto add = [&](const fs::path& dir) {
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  };
  if (!ec) add(real.parent_path());
  for (const auto& file : {found, ec ? found : real})
    if (auto tree = outermost_node_modules(file)) add(*tree);
  return dirs;
}

sdk::Result<void> check_install_directory(const fs::path& dir, const fs::path& home,
                                          const fs::path& config_file) {
  const auto granted = comparable(dir);
  if (!home.empty() && within(comparable(home), granted))
    return sdk::refusal(
        "the agent's install directory " + dir.string() +
        (granted == comparable(home) ? " is the daemon's home" : " holds the daemon's home") +
        " (" + home.string() +
        "), which every session would then read; install the agent in a directory of its "
        "own (e.g. /opt/<agent>/bin or ~/.local/bin) and name it in agent.command");
  if (!config_file.empty() && within(comparable(config_file), granted))
    return sdk::refusal(
        "the agent's install directory " + dir.string() + " holds the configuration file " +
        config_file.string() +
        ", with the chat token and the providers' keys, which every session would then "
        "read; keep the configuration elsewhere or install the agent in a directory of its "
        "own");
  return {};
}

fs::path daemon_home() {
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') return home;
  if (const passwd* entry = ::getpwuid(::getuid()); entry != nullptr && entry->pw_dir != nullptr)
    return entry->pw_dir;
  return {};
}

}  // namespace errand::agent
