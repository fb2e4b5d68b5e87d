#include "core/web/api/api_ids.hpp"

#include <algorithm>

namespace errand::web {

bool is_api_id(std::string_view id) noexcept {
  if (id.empty() || id == "." || id == "..") return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace errand::web
