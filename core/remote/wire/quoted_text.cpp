#include "core/remote/wire/quoted_text.hpp"

#include <fmt/format.h>

namespace errand::remote::wire {

std::string quote_text(std::string_view text) {
  const bool cut = text.size() > kQuotedTextMaxBytes;
  if (cut) text = text.substr(0, kQuotedTextMaxBytes);
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f || c == '"' || c == '\\')
      out += fmt::format("\\x{:02x}", byte);
    else
      out += c;
  }
  out += '"';
  if (cut) out += "...";
  return out;
}

}  // namespace errand::remote::wire
