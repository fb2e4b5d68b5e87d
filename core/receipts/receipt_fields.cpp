#include "core/receipts/receipt_fields.hpp"

#include <fmt/format.h>

namespace errand::receipts {
namespace {

constexpr std::string_view kMintedPrefix = "errand-session-";
constexpr std::size_t kMintedHex = 64;

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::size_t utf8_length(unsigned char lead) {
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

std::string redact_minted(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    const auto hit = text.find(kMintedPrefix, at);
    if (hit == std::string_view::npos) break;
    const std::size_t digits_at = hit + kMintedPrefix.size();
    std::size_t n = 0;
    while (digits_at + n < text.size() && n < kMintedHex && is_hex(text[digits_at + n])) ++n;
    out.append(text.substr(at, hit - at));
    if (n == kMintedHex) {
      out += "[redacted]";
      at = digits_at + n;
    } else {
      out.append(kMintedPrefix);
      at = digits_at;
    }
  }
  out.append(text.substr(std::min(at, text.size())));
  return out;
}

std::string safe_path(std::string_view path, std::size_t max_bytes) {
  const std::string redacted = redact_minted(path);
  std::string out;
  out.reserve(std::min(redacted.size(), max_bytes));
  for (std::size_t i = 0; i < redacted.size();) {
    const auto c = static_cast<unsigned char>(redacted[i]);
    std::string piece;
    std::size_t used = 1;
    if (c < 0x20 || c == 0x7F) {
      piece = fmt::format("\\x{:02x}", c);
    } else {
      used = std::min(utf8_length(c), redacted.size() - i);
      piece.assign(redacted, i, used);
    }
    if (out.size() + piece.size() > max_bytes) break;
    out += piece;
    i += used;
  }
  return out;
}

}  // namespace errand::receipts
