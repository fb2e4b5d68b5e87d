#include "core/remote/quoted_text.hpp"

#include <fmt/format.h>

#include "common/utf8_text.hpp"

namespace errand::remote {
namespace {

bool is_utf8_continuation_byte(unsigned char byte) {
  return (byte & 0xC0) == 0x80;
}

}  // namespace

std::string quote_text(std::string_view text) {
  const bool utf8 = common::is_valid_utf8(text);
  std::string out = "\"";
  for (std::size_t at = 0; at < text.size(); ++at) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (out.size() >= kQuotedTextMaxBytes && !(utf8 && is_utf8_continuation_byte(byte))) {
      out += "...";
      break;
    }
    if (byte == '"' || byte == '\\') {
      out += '\\';
      out += static_cast<char>(byte);
    } else if (byte < 0x20 || byte == 0x7f || (byte >= 0x80 && !utf8)) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += static_cast<char>(byte);
    }
  }
  out += '"';
  return out;
}

}  // namespace errand::remote
