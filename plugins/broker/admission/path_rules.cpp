#include "plugins/broker/admission/path_rules.hpp"

#include "common/hex_digit.hpp"

#include <fmt/format.h>

namespace errand::broker {
namespace {

bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7F;
}

sdk::Result<void> check_segment(std::string_view segment, std::size_t index) {
  const auto where = fmt::format("segment {} ", index);
  if (segment.empty())
    return sdk::refusal(
        "the path has an empty segment (a doubled or trailing '/'); write it without one");
  if (segment == "." || segment == "..")
    return sdk::refusal(fmt::format(
        "{}is '{}', which a server may resolve away; write the path it means", where, segment));
  if (segment.find(';') != std::string_view::npos)
    return sdk::refusal(
        fmt::format("{}carries a ';' parameter, which servers read differently", where));
  if (segment.find('\\') != std::string_view::npos)
    return sdk::refusal(
        fmt::format("{}holds a backslash, which some servers read as a slash", where));
  const auto decoded = percent_decode(segment);
  if (!decoded) return sdk::refusal(fmt::format("{}has a broken percent escape", where));
  if (*decoded == "." || *decoded == "..")
    return sdk::refusal(
        fmt::format("{}decodes to '{}', which a server may resolve away", where, *decoded));
  if (decoded->find('/') != std::string::npos || decoded->find('\\') != std::string::npos)
    return sdk::refusal(
        fmt::format("{}decodes to a slash or backslash, which would split it in two", where));
  for (const char c : *decoded) {
    if (is_control(static_cast<unsigned char>(c)))
      return sdk::refusal(fmt::format("{}decodes to a control character", where));
  }
  return {};
}

}  // namespace

SplitTarget split_target(std::string_view target) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return {target, {}, false};
  return {target.substr(0, q), target.substr(q + 1), true};
}

sdk::Result<void> check_forwardable_path(std::string_view raw_path) {
  if (raw_path.empty() || raw_path.front() != '/')
    return sdk::refusal("the path does not begin with '/'");
  if (raw_path.find('#') != std::string_view::npos)
    return sdk::refusal("the path carries a fragment ('#'), which is never sent to a server");
  if (raw_path == "/") return {};
  std::size_t start = 1, index = 1;
  while (true) {
    const auto slash = raw_path.find('/', start);
    const auto segment =
        raw_path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (auto checked = check_segment(segment, index); !checked) return checked;
    if (slash == std::string_view::npos) return {};
    start = slash + 1;
    ++index;
  }
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int hi = common::hex_digit_value(text[i + 1]);
    const int lo = common::hex_digit_value(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string percent_decode_lenient(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = common::hex_digit_value(text[i + 1]);
      const int lo = common::hex_digit_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (is_control(u)) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string receipt_path_text(std::string_view decoded_scrubbed, std::size_t max_bytes) {
  std::string out;
  for (const char c : decoded_scrubbed) {
    std::string piece = escape_controls(std::string_view(&c, 1));
    if (out.size() + piece.size() > max_bytes) break;
    out += piece;
  }
  // Never end in the middle of a multi-byte UTF-8 sequence.
  std::size_t end = out.size();
  std::size_t lead = end;
  while (lead > 0 && (static_cast<unsigned char>(out[lead - 1]) & 0xC0) == 0x80) --lead;
  if (lead > 0) {
    const auto first = static_cast<unsigned char>(out[lead - 1]);
    std::size_t need = 1;
    if ((first & 0xE0) == 0xC0)
      need = 2;
    else if ((first & 0xF0) == 0xE0)
      need = 3;
    else if ((first & 0xF8) == 0xF0)
      need = 4;
    if (first >= 0x80 && end - (lead - 1) < need) out.resize(lead - 1);
  }
  return out;
}

}  // namespace errand::broker
