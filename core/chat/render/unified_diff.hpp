#pragma once

// A line diff of two versions of a file in unified format, for showing what the agent changed.
// The agent reports a change as the old and new text; the thread shows the difference.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace errand::chat {

struct UnifiedDiff {
  std::string text;  // "@@ -a,b +c,d @@" hunks with their lines; no ---/+++ header
  std::size_t added = 0;
  std::size_t removed = 0;
};

// old_text absent: the file was created. Beyond `max_edit_distance` changed lines the exact
// diff is not searched for: the whole old text is shown removed and the new one added, which is
// still a correct (if long) diff.
UnifiedDiff unified_diff(std::optional<std::string_view> old_text, std::string_view new_text,
                         std::size_t context = 3, std::size_t max_edit_distance = 2000);

}  // namespace errand::chat
