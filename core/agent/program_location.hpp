#pragma once

// Finding an agent's install on the host, as `which` would, so the sandbox can grant its
// directories: the one the command is found in and, when that is a symlink, the one it leads to.

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace errand::agent {

// The first executable regular file named program on search_path (colon separated). A program
// containing a slash is taken as given.
std::optional<std::filesystem::path> find_program(std::string_view program,
                                                  std::string_view search_path);

// The directory found on the path and the directory of its resolved real file, without
// duplicates.
std::vector<std::filesystem::path> install_directories(const std::filesystem::path& found);

}  // namespace errand::agent
