#pragma once

// How bench_launch prints its first-byte rounds: bailey's and podman's one-byte sessions, the
// incus figures beside them as ratios, and where an incus session's time goes.

#include <vector>

#include "tests/bench/launch/first_byte.hpp"
#include "tests/bench/launch/incus_bench.hpp"

namespace errand::bench {

void print_first_byte_rounds(int rounds, int failures, const std::vector<SessionTimes>& bailey,
                             const std::vector<SessionTimes>& podman, const IncusFigures* incus);

}  // namespace errand::bench
