#pragma once

// The address rule as configured: the judge's verdict, the host's own addresses, and the
// ranges sandbox.egress.allowInternal lists. One rule for literals and resolved names alike.

#include <boost/asio/ip/address.hpp>
#include <string>
#include <vector>

#include "common/address_ranges.hpp"
#include "plugins/broker/admission/host_addresses.hpp"

namespace errand::broker {

using common::AddressRange;
using common::parse_address_range;
using common::plain_address;

struct Admission {
  bool admitted = false;
  std::string category;  // what the address is, when refused
  // Refused, but a range in allowInternal would admit it.
  bool liftable = false;
  const AddressRange* lifted_by = nullptr;  // the range that admitted an internal address
};

class AddressPolicy {
 public:
  AddressPolicy(const std::vector<AddressRange>& internal, const HostAddresses& host)
      : internal_(&internal), host_(&host) {}

  // Never lifted by any range: link-local (cloud metadata), fabric, unspecified, broadcast,
  // multicast, and the addresses this host's interfaces carry other than loopback (a service
  // on this host is reached on a listed loopback address, never through its LAN address).
  Admission admit(const boost::asio::ip::address& address) const;

 private:
  const std::vector<AddressRange>* internal_;
  const HostAddresses* host_;
};

}  // namespace errand::broker
