#pragma once

// What a soak scenario reads about a running process from /proc: how much memory it holds
// resident and how many files it has open. A figure that cannot be read is nullopt, so a
// scenario reports it as missing instead of comparing a zero.

#include <cstdint>
#include <optional>

namespace errand::soak {

// VmRSS of /proc/<pid>/status, in KiB.
std::optional<std::uint64_t> resident_kib(int pid);

// The entries of /proc/<pid>/fd.
std::optional<std::size_t> open_descriptors(int pid);

}  // namespace errand::soak
