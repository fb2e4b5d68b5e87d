#pragma once

// A number a server sent, kept within the range its use can take before it becomes an integer or
// a duration: converting a value out of range is undefined. Boost.JSON reads some numbers (such
// as 0e40000) as NaN, which std::clamp would pass through, so NaN counts as the lower bound.

#include <algorithm>
#include <cmath>

namespace errand::discord {

inline double bounded_number(double value, double lowest, double highest) {
  return std::isnan(value) ? lowest : std::clamp(value, lowest, highest);
}

}  // namespace errand::discord
