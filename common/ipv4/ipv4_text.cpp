#include "common/ipv4/ipv4_text.hpp"

#include <arpa/inet.h>

#include <charconv>

namespace errand::ipv4 {

std::optional<std::uint32_t> parse_address(std::string_view text) {
  in_addr a{};
  const std::string copy(text);
  if (::inet_pton(AF_INET, copy.c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

std::string address_text(std::uint32_t address) {
  in_addr a{};
  a.s_addr = htonl(address);
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a, text, sizeof text);
  return text;
}

sdk::Result<Cidr> parse_cidr(std::string_view text, int widest_prefix) {
  const auto slash = text.rfind('/');
  if (slash == std::string_view::npos)
    return sdk::make_error("'" + std::string(text) + "' is not ADDRESS/PREFIX");
  const auto address_part = text.substr(0, slash);
  const auto address = parse_address(address_part);
  if (!address)
    return sdk::make_error("'" + std::string(address_part) + "' is not an IPv4 address");
  Cidr out{*address, 0};
  const auto digits = text.substr(slash + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out.prefix);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() ||
      out.prefix < 1 || out.prefix > widest_prefix)
    return sdk::make_error("'" + std::string(digits) + "' is not a prefix length from 1 to " +
                           std::to_string(widest_prefix));
  return out;
}

}  // namespace errand::ipv4
