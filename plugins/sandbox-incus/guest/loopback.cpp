#include "plugins/sandbox-incus/guest/loopback.hpp"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace errand::incus::guest {

sdk::Result<void> bring_up_loopback() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return sdk::make_error(std::string("bringing up lo: socket: ") + std::strerror(errno));
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  std::string failed;
  if (::ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    failed = "SIOCGIFFLAGS";
  } else if ((request.ifr_flags & IFF_UP) == 0) {
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
    if (::ioctl(fd, SIOCSIFFLAGS, &request) != 0) failed = "SIOCSIFFLAGS";
  }
  const int error = errno;
  ::close(fd);
  if (!failed.empty())
    return sdk::make_error("bringing up lo: " + failed + ": " + std::strerror(error));
  return {};
}

}  // namespace errand::incus::guest
