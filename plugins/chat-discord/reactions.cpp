#include "plugins/chat-discord/reactions.hpp"

namespace errand::discord {

std::string_view reaction_glyph(sdk::Reaction reaction) {
  switch (reaction) {
    case sdk::Reaction::queued: return "\xE2\x8F\xB3";       // U+23F3 hourglass, sand running
    case sdk::Reaction::working: return "\xF0\x9F\x91\x80";  // U+1F440 eyes
    case sdk::Reaction::done: return "\xE2\x9C\x85";         // U+2705 check mark button
    case sdk::Reaction::failed: return "\xE2\x9D\x8C";       // U+274C cross mark
    case sdk::Reaction::stopped: return "\xF0\x9F\x9B\x91";  // U+1F6D1 stop sign
    case sdk::Reaction::expired: return "\xE2\x8C\x9B";      // U+231B hourglass, done
    case sdk::Reaction::aside: return "\xF0\x9F\x92\xAC";    // U+1F4AC speech balloon
    case sdk::Reaction::refused: return "\xF0\x9F\x9A\xAB";  // U+1F6AB prohibited
  }
  return "\xE2\x9D\x93";  // U+2753 question mark, for a value added to the SDK later
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
