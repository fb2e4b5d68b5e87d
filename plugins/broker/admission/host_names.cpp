#include "plugins/broker/admission/host_names.hpp"

#include "common/ascii_case.hpp"

#include <boost/asio/ip/address.hpp>
#include <cctype>

namespace errand::broker {
namespace {

bool valid_label(std::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  for (const char c : label) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || c == '-' || c == '_')) return false;
  }
  return true;
}

bool all_digits(std::string_view label) {
  for (const char c : label)
    if (c < '0' || c > '9') return false;
  return true;
}

// A name whose last label is all digits is an address in disguise: "127.0.0.1." or "127.1"
// would be read as 127.0.0.1 by a resolver while the allowlist and the literal rules saw a
// name. No top-level domain is numeric, so nothing real is lost by refusing them.
bool valid_dns_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    const auto dot = name.find('.', start);
    const auto label = name.substr(start, dot - start);
    if (!valid_label(label)) return false;
    if (dot == std::string_view::npos) return !all_digits(label);
    start = dot + 1;
  }
}

}  // namespace

bool is_ip_literal(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  boost::asio::ip::make_address(std::string(host), ec);
  return !ec;
}

std::optional<std::string> normalise_host(std::string_view host, bool allow_wildcard) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    boost::system::error_code ec;
    const auto address =
        boost::asio::ip::make_address(std::string(host.substr(1, host.size() - 2)), ec);
    if (ec || !address.is_v6()) return std::nullopt;
    return address.to_string();
  }
  if (is_ip_literal(host)) {
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(std::string(host), ec);
    // Only the canonical dotted quad: "127.1" or "0x7f.0.0.1" would be read differently by
    // the resolver and by the judge.
    if (address.is_v4() && address.to_string() != host) return std::nullopt;
    return address.to_string();
  }
  std::string name = common::ascii_lower(host);
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (allow_wildcard && name.starts_with("*.")) {
    if (!valid_dns_name(std::string_view(name).substr(2))) return std::nullopt;
    return name;
  }
  if (!valid_dns_name(name)) return std::nullopt;
  return name;
}

bool is_single_exact_name(std::string_view host) {
  if (host.find('*') != std::string_view::npos) return false;
  return normalise_host(host).has_value();
}

bool host_pattern_matches(std::string_view pattern, std::string_view host) {
  if (pattern == "*") return true;
  const auto normal_host = normalise_host(host);
  const auto normal_pattern = normalise_host(pattern, true);
  if (!normal_host || !normal_pattern) return false;
  if (normal_pattern->starts_with("*.")) {
    const std::string_view suffix = std::string_view(*normal_pattern).substr(1);  // ".example.com"
    return normal_host->size() > suffix.size() && normal_host->ends_with(suffix) &&
           !is_ip_literal(*normal_host);
  }
  return *normal_pattern == *normal_host;
}

HostAllowlist::HostAllowlist(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {}

std::optional<std::string> HostAllowlist::match(std::string_view host) const {
  for (const auto& pattern : patterns_) {
    if (host_pattern_matches(pattern, host)) return pattern;
  }
  return std::nullopt;
}

}  // namespace errand::broker
