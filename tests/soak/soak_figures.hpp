#pragma once

// What every soak scenario shares: how big a run is, and how its figures are printed. A run is
// short (the version scripts/test runs through CTest) unless ERRAND_SOAK=full asks for the size
// the scenario promises (scripts/soak). Figures go to standard output and, when
// ERRAND_SOAK_REPORT names a file, are appended to it, so scripts/soak can print them together.

#include <chrono>
#include <string>
#include <string_view>

namespace errand::soak {

bool full_run();

// The short count in a CTest run, the full one under scripts/soak.
int sized(int short_count, int full_count);
std::chrono::milliseconds sized(std::chrono::milliseconds short_time,
                                std::chrono::milliseconds full_time);

// One figure of one scenario: "soak <scenario>: <figure> = <value>".
void report(std::string_view scenario, std::string_view figure, std::string_view value);
void report(std::string_view scenario, std::string_view figure, double value);

}  // namespace errand::soak
