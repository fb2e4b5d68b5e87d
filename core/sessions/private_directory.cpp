#include "core/sessions/private_directory.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace errand::sessions {

sdk::Result<void> make_private_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec))
    return sdk::make_error("cannot create " + dir.string() + ": " +
                           (ec ? ec.message() : "it is not a directory"));
  if (::chmod(dir.c_str(), 0700) != 0)
    return sdk::make_error("cannot make " + dir.string() +
                           " private (mode 0700): " + std::strerror(errno));
  return {};
}

}  // namespace errand::sessions
