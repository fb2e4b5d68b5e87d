#pragma once

// Cutting long text into chat messages. A code fence that spans a cut is closed at the end of
// one message and opened again, with the same language, at the start of the next, so every
// message renders on its own.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace errand::chat {

struct FenceState {
  bool open = false;
  std::string info;  // the language after the opening ```
  bool at_line_start = true;
};

// The fence state after reading text, starting from `start`. A fence line is ``` at the start
// of a line (after at most three spaces); a closing one carries nothing but spaces after it.
// A last line without a newline is judged only when `ends_text` says nothing follows it.
FenceState fence_after(std::string_view text, FenceState start = {}, bool ends_text = false);

struct MessagePiece {
  std::string text;        // what to post: reopened and closed fences included
  std::size_t consumed{};  // how many bytes of the source this piece covers
  FenceState fence_after;  // the fence state at the end of the covered source
};

// Splits text into pieces of at most `limit` bytes each (bytes never undercount characters).
// Cuts prefer the end of a line, then a space, and never fall inside a UTF-8 sequence. An open
// fence at the end of a piece is closed in that piece. `limit` below 64 is treated as 64.
std::vector<MessagePiece> split_message(std::string_view text, std::size_t limit,
                                        FenceState start = {});

// The longest prefix of text no longer than max_bytes that ends on a UTF-8 boundary.
std::size_t utf8_prefix(std::string_view text, std::size_t max_bytes);

}  // namespace errand::chat
