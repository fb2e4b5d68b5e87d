#include "plugins/sandbox-incus/guest/static_network.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <net/route.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/ipv4/ipv4_text.hpp"

namespace errand::incus::guest {

namespace {

constexpr const char* kResolvConf = "/etc/resolv.conf";
constexpr const char* kResolvConfNew = "/etc/.resolv.conf.errand";

sdk::Error failed(const std::string& step, int error) {
  return sdk::make_error(step + ": " + std::strerror(error));
}

sockaddr_in inet_sockaddr(in_addr address) {
  sockaddr_in out{};
  out.sin_family = AF_INET;
  out.sin_addr = address;
  return out;
}

in_addr netmask(int prefix) {
  in_addr out{};
  out.s_addr = htonl(prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix));
  return out;
}

template <class Address>
void put(sockaddr& slot, const Address& address) {
  std::memcpy(&slot, &address, sizeof address);
}

sdk::Result<void> configure_interface(int fd, const InterfaceAddress& nic) {
  ifreq request{};
  std::strncpy(request.ifr_name, nic.interface.c_str(), IFNAMSIZ - 1);
  put(request.ifr_addr, inet_sockaddr(nic.address));
  if (::ioctl(fd, SIOCSIFADDR, &request) != 0)
    return failed("setting the address of " + nic.interface, errno);
  put(request.ifr_netmask, inet_sockaddr(netmask(nic.prefix)));
  if (::ioctl(fd, SIOCSIFNETMASK, &request) != 0)
    return failed("setting the netmask of " + nic.interface, errno);
  if (::ioctl(fd, SIOCGIFFLAGS, &request) != 0)
    return failed("reading the flags of " + nic.interface, errno);
  request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
  if (::ioctl(fd, SIOCSIFFLAGS, &request) != 0)
    return failed("setting " + nic.interface + " up", errno);
  return {};
}

sdk::Result<void> add_default_route(int fd, in_addr gateway) {
  rtentry route{};
  put(route.rt_dst, inet_sockaddr(in_addr{}));
  put(route.rt_genmask, inet_sockaddr(in_addr{}));
  put(route.rt_gateway, inet_sockaddr(gateway));
  route.rt_flags = RTF_UP | RTF_GATEWAY;
  if (::ioctl(fd, SIOCADDRT, &route) != 0) {
    const int error = errno;
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &gateway, text, sizeof text);
    // EEXIST: something in the image set a default route of its own before the session started.
    return failed(std::string("adding the default route through ") + text, error);
  }
  return {};
}

// Written beside and renamed over, so a reader never sees half a file, and a symlink the image
// put there (to a resolver's stub) is replaced, not written through.
sdk::Result<void> write_resolv_conf(const std::string& text) {
  const int fd =
      ::open(kResolvConfNew, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return failed(std::string("creating ") + kResolvConfNew, errno);
  const auto written = ::write(fd, text.data(), text.size());
  const int error = errno;
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size()))
    return failed(std::string("writing ") + kResolvConfNew, written < 0 ? error : EIO);
  if (::rename(kResolvConfNew, kResolvConf) != 0)
    return failed(std::string("replacing ") + kResolvConf, errno);
  return {};
}

}  // namespace

std::optional<in_addr> parse_ipv4(std::string_view text) {
  const auto address = ipv4::parse_address(text);
  if (!address) return std::nullopt;
  in_addr out{};
  out.s_addr = htonl(*address);
  return out;
}

sdk::Result<InterfaceAddress> parse_interface_address(std::string_view text) {
  const auto equals = text.find('=');
  const auto slash = text.rfind('/');
  if (equals == std::string_view::npos || slash == std::string_view::npos || slash < equals)
    return sdk::make_error("'" + std::string(text) + "' is not INTERFACE=ADDRESS/PREFIX");
  InterfaceAddress out;
  out.interface = text.substr(0, equals);
  if (out.interface.empty() || out.interface.size() >= IFNAMSIZ ||
      out.interface.find('/') != std::string::npos)
    return sdk::make_error("'" + out.interface + "' is not an interface name");
  const auto cidr = ipv4::parse_cidr(text.substr(equals + 1));
  if (!cidr) return cidr.error();
  out.address.s_addr = htonl(cidr->address);
  out.prefix = cidr->prefix;
  return out;
}

std::string resolv_conf(const in_addr& nameserver) {
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &nameserver, text, sizeof text);
  return std::string("# written by errand-guest-init for this session\nnameserver ") + text + "\n";
}

sdk::Result<void> apply_static_network(const StaticNetwork& network) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return failed("a socket to configure the network", errno);
  sdk::Result<void> done;
  for (const auto& nic : network.addresses)
    if (done = configure_interface(fd, nic); !done) break;
  if (done && network.gateway) done = add_default_route(fd, *network.gateway);
  ::close(fd);
  if (!done) return done;
  if (network.nameserver) return write_resolv_conf(resolv_conf(*network.nameserver));
  return {};
}

}  // namespace errand::incus::guest
