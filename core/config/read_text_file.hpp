#pragma once

#include <boost/system/result.hpp>
#include <filesystem>
#include <string>

namespace errand::config {

struct UnreadableFile {
  std::string reason;  // "cannot read /x: Permission denied"
};

// The whole of a regular file, or why it cannot be read.
boost::system::result<std::string, UnreadableFile> read_text_file(
    const std::filesystem::path& file);

}  // namespace errand::config
