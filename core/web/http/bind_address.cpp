#include "core/web/http/bind_address.hpp"

#include "common/address_ranges.hpp"
#include "common/ascii_case.hpp"

#include <fmt/format.h>
#include <boost/url/parse.hpp>

#include <array>
#include <string>
#include <vector>

namespace errand::web {
namespace asio = boost::asio;

namespace {

constexpr std::array kReachableOnlyNearby = {
    "127.0.0.0/8",     // loopback
    "10.0.0.0/8",      // RFC 1918
    "172.16.0.0/12",   // RFC 1918
    "192.168.0.0/16",  // RFC 1918
    "169.254.0.0/16",  // link-local
    "100.64.0.0/10",   // shared address space, where tailnets number their hosts
    "::1/128",         // loopback
    "fe80::/10",       // link-local
    "fc00::/7",        // unique local
};

const std::vector<common::AddressRange>& nearby_ranges() {
  static const std::vector<common::AddressRange> ranges = [] {
    std::vector<common::AddressRange> parsed;
    for (const auto* text : kReachableOnlyNearby)
      parsed.push_back(common::parse_address_range(text).value());
    return parsed;
  }();
  return ranges;
}

}  // namespace

sdk::Result<asio::ip::address> bind_address_of(std::string_view host) {
  if (host.empty())
    return sdk::refusal(
        "the web interface's address is empty; write the address it should listen "
        "on, such as 127.0.0.1");
  if (common::ascii_lower(host) == "localhost") return asio::ip::make_address_v4("127.0.0.1");
  std::string_view literal = host;
  if (literal.size() >= 2 && literal.front() == '[' && literal.back() == ']')
    literal = literal.substr(1, literal.size() - 2);
  boost::system::error_code ec;
  const auto parsed = asio::ip::make_address(std::string(literal), ec);
  if (ec) {
    return sdk::refusal(fmt::format(
        "\"{}\" is a host name, and a host name can resolve to anything; write an address "
        "instead, such as 127.0.0.1, a private or tailnet address of this host, or \"localhost\"",
        host));
  }
  // Bound as the IPv4 address it carries, so the Host and Origin checks see the usual form; a
  // link-local IPv6 address keeps its scope id, which binding it needs.
  const auto address =
      parsed.is_v6() && parsed.to_v6().is_v4_mapped() ? common::plain_address(parsed) : parsed;
  if (address.is_unspecified()) {
    return sdk::refusal(fmt::format(
        "{} is a wildcard, and a wildcard binds every interface, public ones too; write the one "
        "address the web interface should listen on, such as 127.0.0.1 or this host's private "
        "or tailnet address",
        host));
  }
  for (const auto& range : nearby_ranges()) {
    if (range.contains(address)) return address;
  }
  return sdk::refusal(fmt::format(
      "{} is a public address; the web interface has no login, so it listens only on loopback, "
      "private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local or 100.64/10 addresses: write "
      "one of those, such as 127.0.0.1, and reach it from elsewhere through a tunnel or a tailnet",
      host));
}

sdk::Result<PublicOrigin> public_origin_of(std::string_view text) {
  const auto url = boost::urls::parse_absolute_uri(text);
  const auto scheme = url ? common::ascii_lower(url->scheme()) : std::string();
  const bool origin_only = url && (scheme == "http" || scheme == "https") &&
                           !url->encoded_host().empty() && !url->has_userinfo() &&
                           (url->path().empty() || url->path() == "/") && !url->has_query() &&
                           !url->has_fragment();
  if (!origin_only) {
    return sdk::make_error(
        fmt::format("\"{}\" is not the interface's origin: write http:// or https://, a host and "
                    "an optional port, with no path, query or user name, such as "
                    "https://errand.example.ts.net",
                    text),
        sdk::Error::Kind::refused);
  }
  // A browser leaves the scheme's own port out of both headers.
  const bool default_port = !url->has_port() || (scheme == "http" && url->port() == "80") ||
                            (scheme == "https" && url->port() == "443");
  auto host =
      common::ascii_lower(default_port ? url->encoded_host() : url->encoded_host_and_port());
  auto origin = fmt::format("{}://{}", scheme, host);
  return PublicOrigin{std::move(host), std::move(origin)};
}

}  // namespace errand::web
