#pragma once

// What every part of bench_launch measures with: a steady clock, milliseconds since a point,
// the median of a series, and a listening unix socket standing in for the broker.

#include <chrono>
#include <filesystem>
#include <vector>

namespace errand::bench {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start);

// 0 for an empty series, so a part that never ran prints 0 rather than reading past the end.
double median(std::vector<double> series);

// A socket listening at path, or -1; nothing connects to it during the bench.
int listen_unix(const std::filesystem::path& path);

}  // namespace errand::bench
