#pragma once

// Byte counts as text, in the two spellings errand's messages use. They differ on purpose: a
// reply tells a person how big a file is ("1.5 KiB"), while a message about a configured limit
// repeats the limit the way the configuration file writes it ("4g"), so the operator finds the
// key's own value and parse_size reads the figure back.

#include <cstdint>
#include <string>

namespace errand::common {

// "512 bytes", "1.5 KiB", "20.0 MiB", "3.0 GiB": below 1 KiB the exact count, then KiB below
// 1 MiB, MiB below 1 GiB, then GiB, one decimal.
std::string human_size(std::uint64_t bytes);

// "5g", "512m", "4k": the largest of k, m, g, t that divides the count exactly; otherwise, from
// 1 MiB up, megabytes with one decimal ("1.5m"), and below that the exact count ("1000 bytes").
std::string config_size(std::uint64_t bytes);

}  // namespace errand::common
