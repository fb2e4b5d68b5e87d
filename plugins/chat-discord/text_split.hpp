#pragma once

// Cutting text into Discord-sized messages. Discord counts a message's length in Unicode code
// points, so everything here counts code points, and never cuts inside a UTF-8 sequence.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace errand::discord {

// Code points in UTF-8 text (bytes that do not continue a sequence).
std::size_t count_code_points(std::string_view text);

// The longest prefix of text holding at most max_code_points code points, in bytes.
std::size_t prefix_bytes(std::string_view text, std::size_t max_code_points);

// Cuts text into parts of at most limit code points, at line ends where it can. A code block
// (```) that a cut falls inside is closed at the end of the part and reopened, with the same
// info string, at the start of the next. A line longer than a part is cut at code point
// boundaries. Empty text gives no parts. limit must leave room for a fence (at least 64).
std::vector<std::string> split_message(std::string_view text, std::size_t limit);

// A single line summarising text that is sent as a file instead of as messages.
std::string summarize_for_attachment(std::string_view text);

}  // namespace errand::discord
