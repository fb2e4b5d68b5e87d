#pragma once

// Where the web interface may listen, and where people may reach it. It has no login, so the
// address it binds to is its access control: only addresses no stranger on the internet can
// reach are accepted, and a wildcard, a public address or a host name (which can resolve to
// anything) is refused whole. Judged here once, for the configuration's validation and for the
// server alike.

#include <boost/asio/ip/address.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::web {

// The address host names, when it is loopback (127/8, ::1), private (10/8, 172.16/12,
// 192.168/16, fc00::/7), link-local (169.254/16, fe80::/10) or in 100.64/10 (tailnets);
// "localhost" is 127.0.0.1, an IPv6 address may be written in brackets, and an IPv4-mapped
// IPv6 address is judged, and returned, as the IPv4 address it carries. Anything else is
// refused (kind refused) with a sentence saying what to write instead.
sdk::Result<boost::asio::ip::address> bind_address_of(std::string_view host);

// web.publicUrl as a browser names it in its headers, when a proxy forwards the interface.
struct PublicOrigin {
  std::string host;    // the Host header: lower case, the scheme's own port left out
  std::string origin;  // the Origin header: "https://errand.example.ts.net"
};

// An http(s) URL with a host and an optional port and nothing else: a path other than "/", a
// query, a fragment or a user name is refused (kind refused) with a sentence saying what to
// write, since none of them can be part of an origin.
sdk::Result<PublicOrigin> public_origin_of(std::string_view url);

}  // namespace errand::web
