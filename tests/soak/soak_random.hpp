#pragma once

// The random choices of a soak scenario (when to kill, what to write) come from one seeded
// generator, and the seed is reported with the figures, so a failing run can be replayed:
// ERRAND_SOAK_SEED=<seed> runs the same choices again.

#include <cstdint>
#include <random>
#include <string_view>

namespace errand::soak {

// ERRAND_SOAK_SEED when set, a fresh seed otherwise; reported as the scenario's "seed" figure.
std::mt19937_64 seeded_generator(std::string_view scenario);

}  // namespace errand::soak
