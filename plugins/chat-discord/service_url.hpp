#pragma once

// Turning a URL the configuration or Discord hands out into where to connect and which request
// target to send. Discord names its gateway "wss://gateway.discord.gg", with no path at all,
// while an operator may write "https://discord.com/api/v10/" with a trailing slash; every shape
// must become a target that starts with '/', or the server refuses the request line. A URL
// that cannot work is refused here, naming the URL and what is wrong with it.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::discord {

// What the URL is for, which decides the schemes it may have and whether it may carry a query.
enum class UrlRole {
  rest_base,  // chat.apiBase: http(s), paths are appended to it, so no query
  gateway,    // chat.gatewayUrl, /gateway/bot, resume_gateway_url: ws(s), a query is merged
  download,   // an attachment on Discord's CDN: http(s), its signed query is kept
};

// Where a service lives and what every request to it starts with.
struct Endpoint {
  bool tls = true;
  std::string host;  // a name, or an address (IPv6 without brackets)
  bool host_is_address = false;
  std::string port;
  // Percent-encoded. A REST base loses its trailing slashes ("" for the root, "/api/v10");
  // other URLs keep their path as given.
  std::string base_path;
  std::string query;  // percent-encoded, without the '?'

  std::string origin_key() const { return (tls ? "https://" : "http://") + host + ":" + port; }
  // The Host header: the host (bracketed when IPv6), with the port unless it is the default.
  std::string host_header() const;
  // base_path + path, "/" when both are empty, then "?query" when there is one. path is empty
  // or starts with '/'.
  std::string target(std::string_view path = {}) const;
};

// Parses an absolute URL for role. Refuses, naming the URL: no host, user information (errand
// never sends it), a fragment, a port outside 1-65535, a scheme role does not allow, and a
// query on a REST base.
sdk::Result<Endpoint> parse_endpoint(std::string_view url, UrlRole role);

// parse_endpoint, then the rule that plain http:// and ws:// go only to a loopback address
// written as a literal (a local test server): the bot token travels on every request.
sdk::Result<Endpoint> parse_service_url(std::string_view url, UrlRole role);

}  // namespace errand::discord
