#pragma once

// Decides whether an address is one a session may be connected to: a public unicast address,
// never the host's own network, a private or reserved range, or a cloud fabric endpoint.

#include <boost/asio/ip/address.hpp>
#include <string>

namespace errand::broker {

struct AddressVerdict {
  bool is_public = false;
  // What the address is when it is not public ("loopback", "private network", ...); empty
  // when public. For mapped and NAT64 forms it names the IPv4 address judged.
  std::string category;
  // Link-local (cloud metadata among it), fabric, unspecified, broadcast and multicast
  // addresses: never a host a session is meant to reach, so no allowInternal range lifts them.
  bool never_lifted = false;
};

AddressVerdict judge_address(const boost::asio::ip::address& address);

}  // namespace errand::broker
