#pragma once

#include <filesystem>
#include <string>

namespace errand::sessions {

// Creates dir (and its parents) and makes it readable by the daemon's user only. False with the
// reason in why when it cannot be made, is not a directory, or cannot be made private: state,
// records and projects are never left readable by other accounts.
bool make_private_directory(const std::filesystem::path& dir, std::string& why);

}  // namespace errand::sessions
