#pragma once

#include <errand/sdk/result.hpp>
#include <filesystem>

namespace errand::sessions {

// Creates dir (and its parents) and makes it readable by the daemon's user only. An error says
// why when it cannot be made, is not a directory, or cannot be made private: state, records and
// projects are never left readable by other accounts.
sdk::Result<void> make_private_directory(const std::filesystem::path& dir);

}  // namespace errand::sessions
