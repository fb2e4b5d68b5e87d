#pragma once
// Whether a piece of text holds another, for checks on rendered reports, policies and messages.

#include <string_view>

namespace errand::test {

inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace errand::test
