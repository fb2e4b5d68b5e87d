#include "tests/soak/soak_process.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace errand::soak {

std::optional<std::uint64_t> resident_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("VmRSS:")) continue;
    // "VmRSS:     21712 kB"
    const auto digits = line.find_first_of("0123456789");
    if (digits == std::string::npos) return std::nullopt;
    return std::stoull(line.substr(digits));
  }
  return std::nullopt;
}

std::optional<std::size_t> open_descriptors(int pid) {
  std::error_code ec;
  std::filesystem::directory_iterator entries("/proc/" + std::to_string(pid) + "/fd", ec);
  if (ec) return std::nullopt;
  std::size_t count = 0;
  for (auto it = entries; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return std::nullopt;
    ++count;
  }
  return count;
}

}  // namespace errand::soak
