#pragma once

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>

namespace errand::config {

// The whole of a regular file, or why it cannot be read ("cannot read /x: Permission denied").
// The error's kind is not_found when the file does not exist, refused when the path names
// something that is not a regular configuration file (a directory, a file far too large), and
// failed for any other error of the system.
sdk::Result<std::string> read_text_file(const std::filesystem::path& file);

}  // namespace errand::config
