#pragma once

// An egress-open session's nics, configured by the init from the addresses the plugin pinned on
// them (impl/nic_addressing.hpp): nothing in the guest could take one by DHCP, since errand's
// guest filter refuses the packet sockets a DHCP client needs. Root of the container owns its
// network namespace, so the init sets each address, raises the nic, adds the default route
// through the bridge and names the bridge's dnsmasq in /etc/resolv.conf, all before the agent
// starts, so its first request does not race the setup.

#include <netinet/in.h>

#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::incus::guest {

struct InterfaceAddress {
  std::string interface;
  in_addr address{};
  int prefix = 0;
};

struct StaticNetwork {
  std::vector<InterfaceAddress> addresses;
  std::optional<in_addr> gateway;
  std::optional<in_addr> nameserver;
};

// "eth0=10.254.214.37/24": the error says which part is wrong.
sdk::Result<InterfaceAddress> parse_interface_address(std::string_view text);
// "10.254.214.1".
std::optional<in_addr> parse_ipv4(std::string_view text);

// What /etc/resolv.conf says: the nameserver alone, so no search domain or resolver of the
// image's outlives the session's network.
std::string resolv_conf(const in_addr& nameserver);

// Sets every address and raises its nic, then the default route, then /etc/resolv.conf when a
// nameserver is given; the error names the step, the interface and the errno.
sdk::Result<void> apply_static_network(const StaticNetwork& network);

}  // namespace errand::incus::guest
