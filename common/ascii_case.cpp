#include "common/ascii_case.hpp"

#include <boost/beast/core/string.hpp>

namespace errand::common {

std::string ascii_lower(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return lowered;
}

bool istarts_with(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         boost::beast::iequals(text.substr(0, prefix.size()), prefix);
}

}  // namespace errand::common
