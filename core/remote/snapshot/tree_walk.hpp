#pragma once

// Every path under a directory that is not itself a directory, for --include-all where neither
// git nor a .errandignore says what to leave out. Symlinks to directories are listed as the
// links they are, never followed.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::remote {

// Relative to root, '/'-separated; an error naming the directory that could not be read.
sdk::Result<std::vector<std::string>> list_every_file(const std::filesystem::path& root);

}  // namespace errand::remote
