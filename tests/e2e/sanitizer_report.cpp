#include "tests/e2e/sanitizer_report.hpp"

#include <algorithm>
#include <array>

namespace errand::e2e {

std::string sanitizer_report(std::string_view output, std::size_t max_lines) {
  // The first line of a report from each sanitizer's runtime.
  static constexpr std::array<std::string_view, 5> markers{
      "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer",
      "ERROR: ThreadSanitizer", ": runtime error: "};
  std::size_t first = std::string_view::npos;
  for (const auto marker : markers) first = std::min(first, output.find(marker));
  if (first == std::string_view::npos) return {};
  const auto line_start = output.rfind('\n', first);
  auto report = output.substr(line_start == std::string_view::npos ? 0 : line_start + 1);
  std::size_t end = 0;
  for (std::size_t lines = 0; lines < max_lines; ++lines) {
    const auto newline = report.find('\n', end);
    if (newline == std::string_view::npos) return std::string(report);
    end = newline + 1;
  }
  return std::string(report.substr(0, end));
}

}  // namespace errand::e2e
