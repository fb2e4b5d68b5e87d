#include "common/address_ranges.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>

namespace errand::common {
namespace asio = boost::asio;

namespace {

// The bytes of an address, most significant first, with the prefix's bits kept.
template <std::size_t N>
std::array<unsigned char, N> masked(std::array<unsigned char, N> bytes, unsigned prefix) {
  for (std::size_t i = 0; i < N; ++i) {
    const unsigned first_bit = static_cast<unsigned>(i) * 8;
    if (prefix >= first_bit + 8) continue;
    const unsigned keep = prefix > first_bit ? prefix - first_bit : 0;
    bytes[i] &= static_cast<unsigned char>(0xFF00u >> keep);
  }
  return bytes;
}

bool same_prefix(const asio::ip::address& a, const asio::ip::address& b, unsigned prefix) {
  if (a.is_v4() != b.is_v4()) return false;
  if (a.is_v4())
    return masked(a.to_v4().to_bytes(), prefix) == masked(b.to_v4().to_bytes(), prefix);
  return masked(a.to_v6().to_bytes(), prefix) == masked(b.to_v6().to_bytes(), prefix);
}

// "10.1.2.5/24" is refused rather than read as 10.1.2.0/24: the operator may have meant /32.
bool has_bits_below(const asio::ip::address& a, unsigned prefix) {
  if (a.is_v4()) return masked(a.to_v4().to_bytes(), prefix) != a.to_v4().to_bytes();
  return masked(a.to_v6().to_bytes(), prefix) != a.to_v6().to_bytes();
}

}  // namespace

asio::ip::address plain_address(const asio::ip::address& address) {
  if (address.is_v4()) return address;
  const auto v6 = address.to_v6();
  if (v6.is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, v6);
  return asio::ip::address_v6(v6.to_bytes());
}

bool is_loopback_literal(std::string_view host) {
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  const auto bare = bracketed ? host.substr(1, host.size() - 2) : host;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(std::string(bare), ec);
  return !ec && address.is_loopback();
}

bool AddressRange::contains(const asio::ip::address& address) const {
  return same_prefix(base, plain_address(address), prefix);
}

sdk::Result<AddressRange> parse_address_range(std::string_view text) {
  const auto refuse = [&](std::string_view why) {
    return sdk::make_error(fmt::format(
        "\"{}\" is not an address range: {}; write a CIDR block such as \"10.1.2.0/24\" or "
        "\"fd12:3456::/48\", or a single address",
        text, why));
  };
  const auto slash = text.find('/');
  const std::string address_text(text.substr(0, slash));
  boost::system::error_code ec;
  const auto parsed = asio::ip::make_address(address_text, ec);
  if (ec || address_text.find('%') != std::string::npos)
    return refuse(fmt::format("\"{}\" is not an IPv4 or IPv6 address", address_text));
  AddressRange range;
  range.base = plain_address(parsed);
  range.text = std::string(text);
  const unsigned width = range.base.is_v4() ? 32 : 128;
  range.prefix = width;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    unsigned prefix = 0;
    const auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (digits.empty() || err != std::errc() || end != digits.data() + digits.size() ||
        prefix > width)
      return refuse(fmt::format("the prefix length must be a whole number from 0 to {}", width));
    range.prefix = prefix;
  }
  if (has_bits_below(range.base, range.prefix))
    return refuse(fmt::format("{} has bits set below its /{} prefix", address_text, range.prefix));
  return range;
}

}  // namespace errand::common
