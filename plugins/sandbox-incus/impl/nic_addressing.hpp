#pragma once

// Addresses for the nics an egress-open session keeps. Nothing in a guest can take an address by
// DHCP: errand's guest filter refuses the packet sockets every DHCP client needs
// (guest_syscall_policy.hpp). So for each kept nic on a bridge Incus manages, the plugin picks a
// free address in the bridge's subnet and pins it on the instance's copy of the nic
// (ipv4.address, which incusd refuses to start while another nic holds it), and errand-guest-init
// configures it with the bridge as the default route (docs/sandbox-incus.md). Nics on anything
// else are left to the guest. Pure, so the judging and picking are tested without incusd.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace errand::incus {

// An IPv4 subnet as a managed bridge states it: the bridge's own address and the prefix length.
// Addresses are in host byte order.
struct Ipv4Subnet {
  std::uint32_t gateway = 0;
  int prefix = 0;
};

// A managed bridge's ipv4.address ("10.254.214.1/24"); nothing for "none", an empty value, or a
// subnet with no room for a guest beside the bridge (a prefix above 30).
std::optional<Ipv4Subnet> parse_bridge_subnet(std::string_view cidr);

std::string ipv4_text(std::uint32_t address);

// A profile nic errand gives an address to.
struct AddressedNic {
  std::string device;     // its name in the profile
  std::string interface;  // its name inside the guest: the device's "name", else the device's
  std::string network;    // the managed bridge it is on
  boost::json::object profile_device;  // copied to the instance with ipv4.address added
  Ipv4Subnet subnet;
  bool nameserver = false;  // the bridge's dnsmasq answers DNS (dns.mode is not none)
};

// The nic as errand addresses it, or nothing when the network (GET /1.0/networks/<name>) is not
// a managed bridge with an IPv4 subnet.
std::optional<AddressedNic> addressed_nic(const std::string& device,
                                          const boost::json::object& profile_device,
                                          const boost::json::value& network);

// The addresses GET /1.0/networks/<name>/leases lists: static ones pinned on any instance's nic
// (stopped instances too, which incusd counts when it checks a start) and dynamic ones handed out
// by the bridge's dnsmasq.
std::set<std::uint32_t> leased_addresses(const boost::json::value& leases);

// A host address of the subnet that is neither the subnet's own, its broadcast, the bridge's
// nor taken, from a random place on: two daemons on one bridge rarely pick alike, and each
// retries on the conflict incusd reports. Nothing when every address is taken.
std::optional<std::uint32_t> pick_free_address(const Ipv4Subnet& subnet,
                                               const std::set<std::uint32_t>& taken,
                                               std::mt19937_64& random);

// incusd's refusal to start an instance whose pinned address another nic holds.
bool is_address_conflict(std::string_view message);

// An address picked for one nic of one launch.
struct NicAddress {
  const AddressedNic* nic = nullptr;
  std::uint32_t address = 0;
};

}  // namespace errand::incus
