#pragma once

// Text from another machine or from a file name, shown inside an error sentence: in double
// quotes, cut short, with control bytes, quotes and backslashes escaped (and every byte above
// 0x7f when the text is not UTF-8), so a hostile value can neither flood a log nor forge a line
// in it, and a path of 4 KiB does not swamp the sentence.

#include <cstddef>
#include <string>
#include <string_view>

namespace errand::remote {

// How much of the quoted text is kept before "..." (whole UTF-8 characters only).
inline constexpr std::size_t kQuotedTextMaxBytes = 160;

// Named apart from std::quoted, which argument-dependent lookup would pick instead for a
// std::string argument.
std::string quote_text(std::string_view text);

}  // namespace errand::remote
