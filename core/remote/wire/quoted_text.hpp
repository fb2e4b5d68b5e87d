#pragma once

// Peer-supplied text shown inside an error sentence: quoted, cut short, with control and
// non-ASCII bytes escaped, so a hostile value can neither flood a log nor forge a line in it.

#include <cstddef>
#include <string>
#include <string_view>

namespace errand::remote::wire {

inline constexpr std::size_t kQuotedTextMaxBytes = 80;

// "text" with bytes outside printable ASCII, '"' and '\' as \xNN, and "..." after the first
// kQuotedTextMaxBytes bytes when it is longer. Named apart from std::quoted, which
// argument-dependent lookup would pick instead for a std::string argument.
std::string quote_text(std::string_view text);

}  // namespace errand::remote::wire
