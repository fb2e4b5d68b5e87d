#include "common/daemon_mark.hpp"

#include <cstdint>
#include <cstdio>

namespace errand::common {

std::string daemon_mark(const std::filesystem::path& state_dir) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : state_dir.lexically_normal().string()) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace errand::common
