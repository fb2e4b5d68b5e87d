#include "core/sessions/session_naming.hpp"

#include <sys/random.h>

#include <array>
#include <cctype>

namespace errand::sessions {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

// Bytes of the UTF-8 sequence that starts with lead.
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xe) return 3;
  if ((lead >> 3) == 0x1e) return 4;
  return 1;
}

}  // namespace

std::string thread_name_from(std::string_view text) {
  std::string_view line;
  while (!text.empty()) {
    const auto end = text.find('\n');
    line = text.substr(0, end);
    if (line.find_first_not_of(" \t\r\f\v") != std::string_view::npos) break;
    line = {};
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  std::string collapsed;
  bool pending_space = false;
  for (const char c : line) {
    if (is_space(c)) {
      pending_space = !collapsed.empty();
      continue;
    }
    if (pending_space) collapsed.push_back(' ');
    pending_space = false;
    collapsed.push_back(c);
  }
  if (collapsed.empty()) return "session";
  std::string name;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < collapsed.size() && characters < kMaxThreadNameChars;) {
    const auto length =
        std::min(sequence_length(static_cast<unsigned char>(collapsed[i])), collapsed.size() - i);
    name.append(collapsed, i, length);
    i += length;
    ++characters;
  }
  return name;
}

bool is_project_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxProjectNameChars) return false;
  const auto first = static_cast<unsigned char>(name.front());
  if (!std::islower(first) && !std::isdigit(first)) return false;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::islower(u) && !std::isdigit(u) && c != '-' && c != '_' && c != '.') return false;
  }
  return name.find("..") == std::string_view::npos;
}

std::optional<NamedProject> project_named_in(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size() && is_space(text[start])) ++start;
  const auto colon = text.find(':', start);
  if (colon == std::string_view::npos || colon + 1 >= text.size() || !is_space(text[colon + 1]))
    return std::nullopt;
  const auto name = text.substr(start, colon - start);
  if (!is_project_name(name)) return std::nullopt;
  auto rest = text.substr(colon + 1);
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  if (rest.empty()) return std::nullopt;
  return NamedProject{std::string(name), std::string(rest)};
}

std::string random_token() {
  static constexpr std::string_view kDigits = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::array<unsigned char, 12> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const auto n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  std::string token;
  // 252 is the largest multiple of 36 below 256; rejecting above it keeps every digit equally
  // likely.
  for (std::size_t i = 0; token.size() < bytes.size();) {
    if (i == bytes.size()) {
      while (::getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
      }
      i = 0;
    }
    const auto b = bytes[i++];
    if (b < 252) token.push_back(kDigits[b % 36]);
  }
  return token;
}

std::string new_session_id(std::string_view project_name) {
  if (project_name.empty()) return random_token();
  return std::string(project_name) + "-" + random_token();
}

}  // namespace errand::sessions
