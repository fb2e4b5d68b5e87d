#pragma once

// The port of a URL, read from its text. Boost.URL's port_number() wraps a number past 65535
// into range (":65536" becomes 0, ":70000" becomes 4464), so the digits are read here instead.

#include <cstdint>
#include <optional>
#include <string_view>

namespace errand::common {

// The number text spells, when it is one to five digits from 1 to 65535; nothing otherwise
// (empty, a sign, spaces, letters, 0, too large, or more than five digits).
std::optional<std::uint16_t> read_port(std::string_view text);

}  // namespace errand::common
