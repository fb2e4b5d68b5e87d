#include "plugins/sandbox-incus/guest/session_mounts.hpp"

#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace errand::incus::guest {

sdk::Result<void> mount_fresh_tmpfs(const std::string& dir, std::uint64_t bytes) {
  if (::mkdir(dir.c_str(), 01777) != 0 && errno != EEXIST)
    return sdk::make_error("creating " + dir + ": " + std::strerror(errno));
  const auto options = "size=" + std::to_string(bytes) + ",mode=1777";
  if (::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
    return sdk::make_error("mounting a tmpfs of " + std::to_string(bytes) + " bytes on " + dir +
                           ": " + std::strerror(errno));
  return {};
}

}  // namespace errand::incus::guest
