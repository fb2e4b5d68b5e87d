#include "core/chat/command_arguments.hpp"

#include "common/ascii_case.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/beast/core/string.hpp>
#include <cctype>
#include <charconv>

namespace errand::chat {

namespace {

bool is_label_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
}

}  // namespace

sdk::Result<std::chrono::seconds> parse_duration(std::string_view text) {
  const auto bad = [&] {
    return sdk::refusal(
        fmt::format("\"{}\" is not a duration; write a whole number and a unit, such "
                    "as 30s, 10m, 2h or 1d, or write always",
                    text));
  };
  if (text.size() < 2) return bad();
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, number);
  if (ec != std::errc() || end != text.data() + text.size() - 1) return bad();
  std::uint64_t unit_seconds = 0;
  switch (common::ascii_lower(text.substr(text.size() - 1)).front()) {
    case 's': unit_seconds = 1; break;
    case 'm': unit_seconds = 60; break;
    case 'h': unit_seconds = 3600; break;
    case 'd': unit_seconds = 86400; break;
    default: return bad();
  }
  if (number == 0) return sdk::refusal("a grant of no time at all grants nothing; give e.g. 10m");
  const auto max_seconds = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(kMaxGrantDuration).count());
  if (number > max_seconds / unit_seconds) {
    return sdk::refusal(
        fmt::format("{} is longer than the 30 days a timed grant may last; write "
                    "always for a grant that does not end",
                    text));
  }
  return std::chrono::seconds(static_cast<std::int64_t>(number * unit_seconds));
}

sdk::Result<std::string> parse_host_pattern(std::string_view text) {
  const std::string host = common::ascii_lower(text);
  const auto bad = [&](std::string_view why) {
    return sdk::refusal(
        fmt::format("\"{}\" is not a host: {}; give a name such as api.example.com or "
                    "*.example.com",
                    text, why));
  };
  if (host.empty()) return bad("it is empty");
  if (host.find("://") != std::string::npos) return bad("give the host alone, without a scheme");
  if (host.find(':') != std::string::npos) return bad("give the host alone, without a port");
  if (host.find('/') != std::string::npos) return bad("give the host alone, without a path");
  if (host.size() > 253) return bad("it is longer than 253 characters");
  std::string_view name = host;
  if (name.starts_with("*.")) name.remove_prefix(2);
  if (name == "*" || name.find('*') != std::string_view::npos)
    return bad("a wildcard may only stand for the subdomains of a name, as in *.example.com");
  if (name.ends_with('.')) name.remove_suffix(1);
  std::size_t start = 0;
  while (start <= name.size()) {
    const auto dot = name.find('.', start);
    const auto label =
        name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty()) return bad("it has an empty part between dots");
    if (label.size() > 63) return bad("one of its parts is longer than 63 characters");
    if (!std::all_of(label.begin(), label.end(), is_label_char))
      return bad("only letters, digits, hyphens and dots may appear in a host name");
    if (label.front() == '-' || label.back() == '-')
      return bad("a part of a host name cannot start or end with a hyphen");
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return host;
}

sdk::Result<GrantArgument> parse_grant(std::string_view host, std::string_view duration) {
  auto parsed_host = parse_host_pattern(host);
  if (!parsed_host) return parsed_host.error();
  GrantArgument grant;
  grant.host = std::move(*parsed_host);
  if (duration.empty()) return grant;
  if (boost::beast::iequals(duration, "always")) {
    grant.span = sdk::GrantSpan::always;
    return grant;
  }
  auto length = parse_duration(duration);
  if (!length) return length.error();
  grant.span = sdk::GrantSpan::until;
  grant.duration = *length;
  return grant;
}

std::string unquote_path(std::string_view text) {
  if (text.size() >= 2) {
    const char first = text.front();
    if ((first == '"' || first == '\'' || first == '`') && text.back() == first)
      return std::string(text.substr(1, text.size() - 2));
  }
  return std::string(text);
}

}  // namespace errand::chat
