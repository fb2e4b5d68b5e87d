#include "core/agent/program_location.hpp"

#include <unistd.h>
#include <algorithm>
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

}  // namespace errand::agent
