#include "plugins/sandbox-incus/impl/nic_addressing.hpp"

#include "common/ipv4/ipv4_text.hpp"
#include "plugins/sandbox-incus/impl/host_documents.hpp"

namespace errand::incus {

namespace json = boost::json;

namespace {

// The widest subnet that leaves a host address beside the bridge: a /30 has two.
constexpr int kNarrowestPrefix = 30;

}  // namespace

std::optional<Ipv4Subnet> parse_bridge_subnet(std::string_view cidr) {
  const auto parsed = ipv4::parse_cidr(cidr, kNarrowestPrefix);
  if (!parsed) return std::nullopt;
  return Ipv4Subnet{parsed->address, parsed->prefix};
}

std::string ipv4_text(std::uint32_t address) {
  return ipv4::address_text(address);
}

std::optional<AddressedNic> addressed_nic(const std::string& device,
                                          const json::object& profile_device,
                                          const json::value& network) {
  if (text_at(network, "type") != "bridge" || !member(network, "managed").is_bool() ||
      !member(network, "managed").as_bool())
    return std::nullopt;
  const auto cidr = config_value(network, "ipv4.address");
  if (!cidr) return std::nullopt;
  const auto subnet = parse_bridge_subnet(*cidr);
  if (!subnet) return std::nullopt;
  AddressedNic nic;
  nic.device = device;
  const auto named = text_at(profile_device, "name");
  nic.interface = named.empty() ? device : named;
  nic.network = text_at(network, "name");
  nic.profile_device = profile_device;
  nic.subnet = *subnet;
  nic.nameserver = config_value(network, "dns.mode").value_or("managed") != "none";
  return nic;
}

std::set<std::uint32_t> leased_addresses(const json::value& leases) {
  std::set<std::uint32_t> out;
  if (!leases.is_array()) return out;
  for (const auto& lease : leases.as_array())
    if (const auto a = ipv4::parse_address(text_at(lease, "address"))) out.insert(*a);
  return out;
}

std::optional<std::uint32_t> pick_free_address(const Ipv4Subnet& subnet,
                                               const std::set<std::uint32_t>& taken,
                                               std::mt19937_64& random) {
  const std::uint32_t mask = ~std::uint32_t{0} << (32 - subnet.prefix);
  const std::uint32_t base = subnet.gateway & mask;
  // Host numbers 1 .. size-2: not the subnet's own address, not its broadcast.
  const std::uint32_t hosts = ~mask - 1;
  const std::uint32_t start = std::uniform_int_distribution<std::uint32_t>(0, hosts - 1)(random);
  for (std::uint32_t i = 0; i < hosts; ++i) {
    const std::uint32_t candidate = base + 1 + (start + i) % hosts;
    if (candidate != subnet.gateway && !taken.contains(candidate)) return candidate;
  }
  return std::nullopt;
}

bool is_address_conflict(std::string_view message) {
  return message.find("already defined on another NIC") != std::string_view::npos;
}

}  // namespace errand::incus
