#pragma once

// The address ranges sandbox.egress.allowInternal lists: CIDR blocks such as "10.1.2.0/24" or
// "fd12:3456::/48", or a single address. One parser for the core, which refuses a bad range
// when it validates the configuration, and the broker, which judges addresses with them.

#include <boost/asio/ip/address.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::common {

struct AddressRange {
  boost::asio::ip::address base;
  unsigned prefix = 0;
  std::string text;  // as the operator wrote it, for the log

  // An IPv4-mapped IPv6 address is compared as the IPv4 address it carries.
  bool contains(const boost::asio::ip::address& address) const;
};

// Refuses, saying why, text that is not an address or an address/prefix with no bits set
// below the prefix.
sdk::Result<AddressRange> parse_address_range(std::string_view text);

// The IPv4 address an IPv4-mapped IPv6 address carries; any other address as it is, without a
// scope id, so two spellings of one address compare equal.
boost::asio::ip::address plain_address(const boost::asio::ip::address& address);

// True for a host that is a loopback literal: 127.0.0.0/8, ::1 or [::1]. Plain http may go
// only there, since whatever it carries (a token) crosses no network.
bool is_loopback_literal(std::string_view host);

}  // namespace errand::common
