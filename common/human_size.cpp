#include "common/human_size.hpp"

#include <fmt/format.h>

namespace errand::common {

std::string human_size(std::uint64_t bytes) {
  constexpr std::uint64_t kib = std::uint64_t{1} << 10;
  constexpr std::uint64_t mib = std::uint64_t{1} << 20;
  if (bytes >= mib) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / mib);
  if (bytes >= kib) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / kib);
  return fmt::format("{} bytes", bytes);
}

}  // namespace errand::common
