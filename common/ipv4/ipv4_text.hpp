#pragma once

// IPv4 addresses and ADDRESS/PREFIX as text, in host byte order: what the Incus plugin reads from
// incusd's network descriptions and writes onto errand-guest-init's command line, and what the
// guest init reads back. Standard library and the header-only sdk::Result only, so the static
// guest init links it.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace errand::ipv4 {

struct Cidr {
  std::uint32_t address = 0;  // host byte order
  int prefix = 0;
};

// Dotted-quad text, exactly: no prefix, no spaces, four parts.
std::optional<std::uint32_t> parse_address(std::string_view text);
std::string address_text(std::uint32_t address);

// ADDRESS/PREFIX with a prefix from 1 to widest_prefix; the refusal quotes the part that is wrong.
sdk::Result<Cidr> parse_cidr(std::string_view text, int widest_prefix = 32);

}  // namespace errand::ipv4
