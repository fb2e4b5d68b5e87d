#include "core/sessions/private_directory.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace errand::sessions {

bool make_private_directory(const std::filesystem::path& dir, std::string& why) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec)) {
    why = "cannot create " + dir.string() + ": " + (ec ? ec.message() : "it is not a directory");
    return false;
  }
  if (::chmod(dir.c_str(), 0700) != 0) {
    why = "cannot make " + dir.string() + " private (mode 0700): " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace errand::sessions
