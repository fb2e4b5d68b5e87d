#pragma once

// The reactions errand puts on chat messages: for each sdk::Reaction, the emoji a chat
// transport shows and what it tells the people in the thread. The one table the chat-discord
// plugin reacts with and `errand reference characters` documents, so the page cannot say one
// thing while the thread shows another.

#include <errand/sdk/chat_transport.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace errand::common {

struct ReactionMark {
  sdk::Reaction reaction;
  std::string_view name;        // the SDK's name for it
  std::string_view glyph;       // UTF-8: one code point with emoji presentation
  std::string_view code_point;  // "U+2705", for readers whose font lacks the glyph
  std::string_view meaning;
};

// The mark of a reaction; absent only for a value from a newer SDK than this build's.
std::optional<ReactionMark> reaction_mark(sdk::Reaction reaction);

// Every mark, in the SDK's order.
std::vector<ReactionMark> reaction_marks();

}  // namespace errand::common
