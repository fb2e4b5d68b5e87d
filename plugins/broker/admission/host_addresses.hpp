#pragma once

// The addresses this host's own interfaces carry. A session connected to one of them would
// reach every service the host binds to 0.0.0.0 or [::], so the broker refuses them all.

#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace errand::broker {

// The addresses getifaddrs reports for every interface, up or down. Throws std::system_error
// when getifaddrs fails.
std::vector<boost::asio::ip::address> interface_addresses();

using InterfaceAddressSource = std::function<std::vector<boost::asio::ip::address>()>;

class HostAddresses {
 public:
  // The list is read again when it is older than max_age at a check, so an address an
  // interface gains (DHCP, a new interface) is refused within max_age of appearing.
  explicit HostAddresses(InterfaceAddressSource source = interface_addresses,
                         std::chrono::milliseconds max_age = std::chrono::seconds(1));

  struct Check {
    bool carried = false;
    // Why the list could not be read; the address is then treated as carried, since a host
    // address let through would be the weaker guarantee.
    std::string unreadable;
  };
  Check check(const boost::asio::ip::address& address) const;

 private:
  InterfaceAddressSource source_;
  std::chrono::milliseconds max_age_;
  mutable std::mutex mutex_;
  mutable std::vector<boost::asio::ip::address> addresses_;
  mutable std::chrono::steady_clock::time_point read_at_{};
  mutable bool read_ = false;
  mutable std::string unreadable_;
};

}  // namespace errand::broker
