#pragma once

// A byte count as a person reads it in a reply: "512 bytes", "1.5 KiB", "20.0 MiB".

#include <cstdint>
#include <string>

namespace errand::common {

// Binary units: below 1 KiB the exact count, then KiB below 1 MiB, then MiB, one decimal.
std::string human_size(std::uint64_t bytes);

}  // namespace errand::common
