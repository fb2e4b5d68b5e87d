#pragma once

// ASCII case for protocol words (header names, host names, command words, units). Comparing
// without case is boost::beast::iequals; these cover the two shapes it does not.

#include <string>
#include <string_view>

namespace errand::common {

// text with A-Z turned into a-z; every other byte is left as it is.
std::string ascii_lower(std::string_view text);

// True when text begins with prefix, ignoring ASCII case.
bool istarts_with(std::string_view text, std::string_view prefix);

}  // namespace errand::common
