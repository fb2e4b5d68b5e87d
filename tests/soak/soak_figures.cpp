#include "tests/soak/soak_figures.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

namespace errand::soak {

bool full_run() {
  const char* mode = std::getenv("ERRAND_SOAK");
  return mode != nullptr && std::string_view(mode) == "full";
}

int sized(int short_count, int full_count) {
  return full_run() ? full_count : short_count;
}

std::chrono::milliseconds sized(std::chrono::milliseconds short_time,
                                std::chrono::milliseconds full_time) {
  return full_run() ? full_time : short_time;
}

void report(std::string_view scenario, std::string_view figure, std::string_view value) {
  const std::string line = fmt::format("soak {}: {} = {}\n", scenario, figure, value);
  fmt::print("{}", line);
  std::fflush(stdout);
  if (const char* file = std::getenv("ERRAND_SOAK_REPORT"); file != nullptr && *file != '\0') {
    std::ofstream(file, std::ios::app) << line;
  }
}

void report(std::string_view scenario, std::string_view figure, double value) {
  report(scenario, figure, fmt::format("{:g}", value));
}

}  // namespace errand::soak
