#include "tests/fakes/github/base64_text.hpp"

#include <cstdint>

namespace errand::fakes {
namespace {

int sextet(char c, char plus, char slash) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == plus) return 62;
  if (c == slash) return 63;
  return -1;
}

std::optional<std::string> decode_unpadded(std::string_view text, char plus, char slash) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int held = 0;
  for (const char c : text) {
    const int value = sextet(c, plus, slash);
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(value);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<char>((bits >> held) & 0xFF));
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> decode_base64url(std::string_view text) {
  return decode_unpadded(text, '-', '_');
}

std::optional<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  return decode_unpadded(text.substr(0, text.size() - padding), '+', '/');
}

}  // namespace errand::fakes
