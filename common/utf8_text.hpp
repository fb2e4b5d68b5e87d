#pragma once

// Text that reaches a reader who expects UTF-8 (a page's JSON, a file shown inline) may come
// from anywhere: a file name the agent chose, a header a client sent. These say whether it is
// UTF-8, and make it so without losing where the bad bytes were.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace errand::common {

// Well-formed UTF-8: no stray continuation byte, no overlong or truncated sequence, nothing
// past U+10FFFF and no surrogate.
bool is_valid_utf8(std::string_view text) noexcept;

// The offset of the first byte that does not begin a well-formed sequence; nothing when the
// whole text is well formed. Lets a refusal say where the bad bytes are.
std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept;

// The characters (code points) in well-formed UTF-8: every byte that is not a continuation.
std::size_t utf8_characters(std::string_view text) noexcept;

// The text with every byte that is not part of a well-formed sequence replaced by U+FFFD.
std::string with_invalid_utf8_replaced(std::string_view text);

}  // namespace errand::common
