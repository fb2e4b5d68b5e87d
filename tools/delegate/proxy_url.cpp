#include "tools/delegate/proxy_url.hpp"

#include "common/hex_digit.hpp"

#include <cctype>

namespace errand::delegate {

namespace {

ProxyRefusal refuse(const std::string& why) {
  return {"the session's proxy address is not one delegate can use: " + why};
}

}  // namespace

bool percent_decode(const std::string& in, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int high = common::hex_digit_value(in[i + 1]);
    const int low = common::hex_digit_value(in[i + 2]);
    if (high < 0 || low < 0) return false;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return true;
}

std::variant<ProxyAddress, ProxyRefusal> parse_proxy_url(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  if (url.size() < kScheme.size() || url.compare(0, kScheme.size(), kScheme) != 0)
    return refuse("it does not start with http://");
  std::string rest = url.substr(kScheme.size());
  if (const auto end = rest.find_first_of("/?#"); end != std::string::npos) {
    if (rest.find_first_not_of('/', end) != std::string::npos)
      return refuse("it has a path after the address");
    rest.resize(end);
  }
  const auto at = rest.rfind('@');
  if (at == std::string::npos) return refuse("it carries no user and credential");
  const std::string userinfo = rest.substr(0, at);
  const std::string hostport = rest.substr(at + 1);
  const auto colon = userinfo.find(':');
  if (colon == std::string::npos) return refuse("it carries a user but no credential");
  ProxyAddress out;
  if (!percent_decode(userinfo.substr(0, colon), out.user) ||
      !percent_decode(userinfo.substr(colon + 1), out.credential))
    return refuse("its user or credential has a malformed %-escape");
  if (out.user.empty() || out.credential.empty()) return refuse("its user or credential is empty");

  std::string port_text;
  bool port_written = false;
  if (!hostport.empty() && hostport[0] == '[') {
    const auto close = hostport.find(']');
    if (close == std::string::npos) return refuse("its IPv6 address has no closing ]");
    out.host = hostport.substr(1, close - 1);
    const std::string after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return refuse("something follows its IPv6 address");
      port_text = after.substr(1);
      port_written = true;
    }
  } else {
    const auto port_colon = hostport.rfind(':');
    out.host = hostport.substr(0, port_colon);
    if (port_colon != std::string::npos) {
      port_text = hostport.substr(port_colon + 1);
      port_written = true;
    }
  }
  if (out.host.empty()) return refuse("it names no host");
  if (port_written) {
    if (port_text.empty() || port_text.size() > 5 ||
        port_text.find_first_not_of("0123456789") != std::string::npos)
      return refuse("its port \"" + port_text + "\" is not a number");
    const unsigned long port = std::stoul(port_text);
    if (port == 0 || port > 65535) return refuse("its port " + port_text + " is out of range");
    out.port = static_cast<std::uint16_t>(port);
  }
  out.authority = hostport;
  if (!port_written) out.authority += ":" + std::to_string(out.port);
  return out;
}

}  // namespace errand::delegate
