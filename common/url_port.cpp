#include "common/url_port.hpp"

#include <charconv>

namespace errand::common {

std::optional<std::uint16_t> read_port(std::string_view text) {
  // Five digits at most, so "000080" is refused like any other port that is written oddly.
  if (text.empty() || text.size() > 5 ||
      text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  std::uint32_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (number < 1 || number > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(number);
}

}  // namespace errand::common
