#include "common/human_size.hpp"

#include <fmt/format.h>

#include <array>

namespace errand::common {

namespace {

constexpr std::uint64_t kib = std::uint64_t{1} << 10;
constexpr std::uint64_t mib = std::uint64_t{1} << 20;
constexpr std::uint64_t gib = std::uint64_t{1} << 30;

}  // namespace

std::string human_size(std::uint64_t bytes) {
  if (bytes >= gib) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / gib);
  if (bytes >= mib) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / mib);
  if (bytes >= kib) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / kib);
  return fmt::format("{} bytes", bytes);
}

std::string config_size(std::uint64_t bytes) {
  // Largest first, so 5 GiB is "5g" and never "5120m".
  constexpr std::array<char, 4> units = {'t', 'g', 'm', 'k'};
  for (std::size_t i = 0; i < units.size(); ++i) {
    const std::uint64_t unit = std::uint64_t{1} << (10 * (units.size() - i));
    if (bytes >= unit && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, units[i]);
  }
  if (bytes >= mib) return fmt::format("{:.1f}m", static_cast<double>(bytes) / mib);
  return fmt::format("{} bytes", bytes);
}

}  // namespace errand::common
