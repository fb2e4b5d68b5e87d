#include "tests/soak/soak_random.hpp"

#include "tests/soak/soak_figures.hpp"

#include <cstdlib>
#include <string>

namespace errand::soak {

std::mt19937_64 seeded_generator(std::string_view scenario) {
  std::uint64_t seed = 0;
  if (const char* given = std::getenv("ERRAND_SOAK_SEED"); given != nullptr && *given != '\0')
    seed = std::stoull(given);
  else
    seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  report(scenario, "seed", std::to_string(seed));
  return std::mt19937_64(seed);
}

}  // namespace errand::soak
