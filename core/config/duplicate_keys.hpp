#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace errand::config {

// The dotted paths of keys written more than once in the same object of a JSONC text, in the
// order met. A JSON parser keeps only the last of them, so the earlier one would be ignored
// without a word; errand refuses the file instead. {} for a text that does not parse (the
// parse reports that).
std::vector<std::string> find_duplicate_keys(std::string_view text);

}  // namespace errand::config
