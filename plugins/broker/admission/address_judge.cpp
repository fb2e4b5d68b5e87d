#include "plugins/broker/admission/address_judge.hpp"

#include <array>
#include <cstdint>

namespace errand::broker {
namespace {

struct V4Range {
  std::uint32_t base;
  int prefix;
  const char* category;
  bool never_lifted = false;
};

constexpr std::uint32_t v4(int a, int b, int c, int d) {
  return (std::uint32_t(a) << 24) | (std::uint32_t(b) << 16) | (std::uint32_t(c) << 8) |
         std::uint32_t(d);
}

// Every IPv4 range a session must not reach, most specific first where they overlap. The cloud
// metadata and fabric addresses are never lifted: docs/broker.md's table names each cloud that
// documents one. Those inside a range an operator may list (Alibaba's in 100.64/10, Oracle's
// older one in 192.0.0/24) come before that range.
constexpr std::array<V4Range, 21> kRefusedV4{{
    {v4(168, 63, 129, 16), 32, "a cloud fabric address (Azure's 168.63.129.16)", true},
    {v4(169, 254, 169, 254), 32, "a cloud metadata address (169.254.169.254)", true},
    {v4(100, 100, 100, 200), 32, "a cloud metadata address (Alibaba Cloud's 100.100.100.200)",
     true},
    {v4(192, 0, 0, 192), 32, "a cloud metadata address (Oracle Cloud's 192.0.0.192)", true},
    {v4(255, 255, 255, 255), 32, "the broadcast address", true},
    {v4(0, 0, 0, 0), 8, "an unspecified or 'this network' address", true},
    {v4(10, 0, 0, 0), 8, "a private network address"},
    {v4(100, 64, 0, 0), 10, "a carrier-grade NAT address"},
    {v4(127, 0, 0, 0), 8, "a loopback address"},
    {v4(169, 254, 0, 0), 16, "a link-local address", true},
    {v4(172, 16, 0, 0), 12, "a private network address"},
    {v4(192, 0, 0, 0), 24, "a reserved protocol-assignment address"},
    {v4(192, 0, 2, 0), 24, "a documentation address"},
    {v4(192, 31, 196, 0), 24, "a reserved anycast address"},
    {v4(192, 52, 193, 0), 24, "a reserved anycast address"},
    {v4(192, 88, 99, 0), 24, "a reserved relay anycast address"},
    {v4(192, 168, 0, 0), 16, "a private network address"},
    {v4(198, 18, 0, 0), 15, "a benchmarking address"},
    {v4(198, 51, 100, 0), 24, "a documentation address"},
    {v4(203, 0, 113, 0), 24, "a documentation address"},
    {v4(224, 0, 0, 0), 3, "a multicast or reserved address", true},  // 224/4 and 240/4 together
}};

bool in_v4(std::uint32_t address, const V4Range& range) {
  const std::uint32_t mask = range.prefix == 0 ? 0 : ~std::uint32_t(0) << (32 - range.prefix);
  return (address & mask) == (range.base & mask);
}

AddressVerdict judge_v4(std::uint32_t address) {
  for (const auto& range : kRefusedV4) {
    if (!in_v4(address, range)) continue;
    if (range.prefix == 3) {
      return {false, address >= v4(240, 0, 0, 0) ? "a reserved address" : "a multicast address",
              true};
    }
    return {false, range.category, range.never_lifted};
  }
  return {true, {}};
}

using V6Bytes = boost::asio::ip::address_v6::bytes_type;

bool prefix_matches(const V6Bytes& bytes, std::initializer_list<std::uint8_t> prefix_bytes,
                    int prefix_bits) {
  int bit = 0;
  for (const std::uint8_t want : prefix_bytes) {
    const int idx = bit / 8;
    const int take = std::min(8, prefix_bits - bit);
    if (take <= 0) break;
    const std::uint8_t mask = static_cast<std::uint8_t>(0xFF << (8 - take));
    if ((bytes[idx] & mask) != (want & mask)) return false;
    bit += 8;
  }
  return true;
}

std::uint32_t v4_at(const V6Bytes& bytes, int offset) {
  return (std::uint32_t(bytes[offset]) << 24) | (std::uint32_t(bytes[offset + 1]) << 16) |
         (std::uint32_t(bytes[offset + 2]) << 8) | std::uint32_t(bytes[offset + 3]);
}

// An IPv6 form that carries an IPv4 address is judged as that address, so ::ffff:127.0.0.1
// and 64:ff9b::a00:1 are refused exactly as 127.0.0.1 and 10.0.0.1 are.
AddressVerdict judge_embedded(std::uint32_t embedded, const char* form) {
  AddressVerdict verdict = judge_v4(embedded);
  if (!verdict.is_public) {
    verdict.category = std::string(form) + " of " +
                       boost::asio::ip::address_v4(embedded).to_string() + ", " + verdict.category;
  }
  return verdict;
}

// The clouds' metadata services on IPv6, all inside the unique-local range, which an operator
// may list.
struct V6Metadata {
  boost::asio::ip::address_v6 address;
  const char* category;
};
const std::array<V6Metadata, 4> kMetadataV6{{
    {boost::asio::ip::make_address_v6("fd00:ec2::254"), "a cloud metadata address (fd00:ec2::254)"},
    {boost::asio::ip::make_address_v6("fd00:ec2::23"),
     "a cloud metadata address (AWS EKS Pod Identity's fd00:ec2::23)"},
    {boost::asio::ip::make_address_v6("fd20:ce::254"),
     "a cloud metadata address (Google Cloud's fd20:ce::254)"},
    {boost::asio::ip::make_address_v6("fd00:42::42"),
     "a cloud metadata address (Scaleway's fd00:42::42)"},
}};

AddressVerdict judge_v6(const boost::asio::ip::address_v6& address) {
  const V6Bytes b = address.to_bytes();
  if (address.is_unspecified()) return {false, "the unspecified address", true};
  if (address.is_loopback()) return {false, "a loopback address"};
  if (address.is_v4_mapped()) return judge_embedded(v4_at(b, 12), "an IPv4-mapped form");
  if (prefix_matches(b, {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, 96)) {
    return judge_embedded(v4_at(b, 12), "a NAT64 form");
  }
  if (prefix_matches(b, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48))
    return {false, "a local-use NAT64 address"};
  if (prefix_matches(b, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 96))
    return {false, "a deprecated IPv4-compatible address"};
  for (const auto& metadata : kMetadataV6)
    if (address == metadata.address) return {false, metadata.category, true};
  if (prefix_matches(b, {0xfc}, 7)) return {false, "a unique-local address"};
  if (prefix_matches(b, {0xfe, 0x80}, 10)) return {false, "a link-local address", true};
  if (prefix_matches(b, {0xfe, 0xc0}, 10)) return {false, "a deprecated site-local address"};
  if (prefix_matches(b, {0xff}, 8)) return {false, "a multicast address", true};
  if (prefix_matches(b, {0x01, 0x00, 0, 0, 0, 0, 0, 0}, 64))
    return {false, "a discard-only address"};
  if (prefix_matches(b, {0x20, 0x01, 0x0d, 0xb8}, 32)) return {false, "a documentation address"};
  if (prefix_matches(b, {0x3f, 0xff}, 20)) return {false, "a documentation address"};
  if (prefix_matches(b, {0x20, 0x01, 0x00}, 23))
    return {false, "a reserved protocol-assignment address"};
  if (prefix_matches(b, {0x20, 0x02}, 16)) return judge_embedded(v4_at(b, 2), "a 6to4 form");
  if (prefix_matches(b, {0x5f, 0x00}, 16)) return {false, "a reserved routing address"};
  // Only global unicast is allocated for public use; anything else is reserved.
  if (!prefix_matches(b, {0x20}, 3)) return {false, "a reserved address"};
  return {true, {}};
}

}  // namespace

AddressVerdict judge_address(const boost::asio::ip::address& address) {
  if (address.is_v4()) return judge_v4(address.to_v4().to_uint());
  return judge_v6(address.to_v6());
}

}  // namespace errand::broker
