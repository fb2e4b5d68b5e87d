#include "core/remote/snapshot/tree_walk.hpp"

#include <fmt/format.h>

#include <system_error>

namespace errand::remote {

sdk::Result<std::vector<std::string>> list_every_file(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  const std::string prefix = root.string() + (root.string().ends_with('/') ? "" : "/");
  std::vector<std::string> paths;
  std::error_code error;
  // No follow_directory_symlink: a link to a directory is an entry of its own, and a link to
  // somewhere above root would otherwise send what is outside it.
  fs::recursive_directory_iterator walk(root, fs::directory_options::none, error);
  const fs::recursive_directory_iterator end;
  // The entry read last: when going into a directory fails, the directory that could not be read.
  std::string last = root.string();
  for (; !error && walk != end; walk.increment(error)) {
    last = walk->path().string();
    const auto status = walk->symlink_status(error);
    if (error) break;
    if (fs::is_directory(status)) continue;
    const std::string path = walk->path().string();
    paths.push_back(path.starts_with(prefix) ? path.substr(prefix.size()) : path);
  }
  if (error) {
    return sdk::make_error(fmt::format("cannot list every file under {}: {}: {}", root.string(),
                                       last, error.message()));
  }
  return paths;
}

}  // namespace errand::remote
