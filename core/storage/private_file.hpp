#pragma once

#include <errand/sdk/result.hpp>
#include <filesystem>

namespace errand::storage {

// Makes `file` exist as a regular file only its owner can read or write (mode 0600), creating it
// when absent. A symbolic link at the path is refused: a database of who asked what must not be
// redirected to a file someone else chose.
sdk::Result<void> make_private_file(const std::filesystem::path& file);

}  // namespace errand::storage
