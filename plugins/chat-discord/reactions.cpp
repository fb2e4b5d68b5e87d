#include "plugins/chat-discord/reactions.hpp"

#include "common/reaction_marks.hpp"

namespace errand::discord {

std::string_view reaction_glyph(sdk::Reaction reaction) {
  if (const auto mark = common::reaction_mark(reaction)) return mark->glyph;
  return "\xE2\x9D\x93";  // U+2753 question mark, for a value from a newer SDK
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3);
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

}  // namespace errand::discord
