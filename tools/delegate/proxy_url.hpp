#pragma once

// The session's broker, as the proxy variable names it: http://USER:CREDENTIAL@HOST:PORT. The
// user and credential are percent-decoded; the host is a numeric address or localhost, since a
// statically linked program has no name service to ask (inside a sandbox it is 127.0.0.1).

#include <cstdint>
#include <string>
#include <variant>

namespace errand::delegate {

struct ProxyAddress {
  std::string host;  // as written, without IPv6 brackets
  std::uint16_t port = 80;
  std::string user;
  std::string credential;
  // HOST:PORT as the Host header writes it (brackets kept for IPv6).
  std::string authority;
};

struct ProxyRefusal {
  std::string sentence;
};

std::variant<ProxyAddress, ProxyRefusal> parse_proxy_url(const std::string& url);

// %XX sequences decoded; false for a malformed one.
bool percent_decode(const std::string& in, std::string& out);

}  // namespace errand::delegate
