#include "plugins/broker/provider/usage_headers.hpp"

#include <charconv>
#include <cmath>
#include <ctime>

namespace errand::broker {

namespace {

using std::chrono::system_clock;

std::string_view header(const boost::beast::http::fields& headers, const std::string& name) {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string_view{} : std::string_view(it->value());
}

std::optional<std::uint64_t> whole_number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<double> decimal(std::string_view text) {
  if (text.empty() || text.size() > 32) return std::nullopt;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool digits(std::string_view text, std::size_t at, std::size_t count, int& out) {
  if (at + count > text.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

bool any_window_value(const sdk::UsageWindow& w) {
  return w.limit || w.remaining || w.used_fraction || w.resets_at;
}

}  // namespace

std::optional<system_clock::time_point> parse_rfc3339(std::string_view text) {
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(text, 0, 4, year) || text.size() < 20 || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !digits(text, 11, 2, hour) ||
      text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':' ||
      !digits(text, 17, 2, second))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  std::size_t at = 19;
  std::chrono::milliseconds fraction{0};
  if (at < text.size() && text[at] == '.') {
    int scale = 100;
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
      fraction += std::chrono::milliseconds((text[at] - '0') * scale);
  }
  std::chrono::minutes offset{0};
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-')) {
    int hours = 0, minutes = 0;
    if (!digits(text, at + 1, 2, hours) || text[at + 3] != ':' || !digits(text, at + 4, 2, minutes))
      return std::nullopt;
    offset = std::chrono::minutes(hours * 60 + minutes) * (text[at] == '+' ? 1 : -1);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t utc = ::timegm(&tm);
  return system_clock::from_time_t(utc) + fraction - offset;
}

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (auto plain = decimal(text); plain && *plain >= 0)
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(*plain * 1000)));
  double total_ms = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto start = at;
    while (at < text.size() && ((text[at] >= '0' && text[at] <= '9') || text[at] == '.')) ++at;
    const auto number = decimal(text.substr(start, at - start));
    const auto unit_start = at;
    while (at < text.size() && text[at] >= 'a' && text[at] <= 'z') ++at;
    const auto unit = text.substr(unit_start, at - unit_start);
    if (!number || *number < 0) return std::nullopt;
    if (unit == "h") {
      total_ms += *number * 3600000;
    } else if (unit == "m") {
      total_ms += *number * 60000;
    } else if (unit == "s") {
      total_ms += *number * 1000;
    } else if (unit == "ms") {
      total_ms += *number;
    } else {
      return std::nullopt;
    }
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(total_ms)));
}

std::optional<sdk::ProviderUsage> usage_from_headers(const std::string& provider,
                                                     const boost::beast::http::fields& headers,
                                                     system_clock::time_point now) {
  sdk::ProviderUsage usage;
  usage.provider = provider;
  usage.observed_at = now;
  const auto keep = [&](sdk::UsageWindow window) {
    if (any_window_value(window)) usage.windows.push_back(std::move(window));
  };
  for (const auto& [kind, name] : {std::pair{"requests", "requests"},
                                   {"tokens", "tokens"},
                                   {"input-tokens", "input tokens"},
                                   {"output-tokens", "output tokens"}}) {
    const std::string prefix = std::string("anthropic-ratelimit-") + kind;
    sdk::UsageWindow window;
    window.name = name;
    window.limit = whole_number(header(headers, prefix + "-limit"));
    window.remaining = whole_number(header(headers, prefix + "-remaining"));
    window.resets_at = parse_rfc3339(header(headers, prefix + "-reset"));
    keep(std::move(window));
  }
  for (const auto& [key, name] : {std::pair{"5h", "5-hour"}, {"7d", "7-day"}}) {
    const std::string prefix = std::string("anthropic-ratelimit-unified-") + key;
    sdk::UsageWindow window;
    window.name = name;
    if (auto used = decimal(header(headers, prefix + "-utilization")); used && *used >= 0)
      window.used_fraction = *used;
    if (auto reset = whole_number(header(headers, prefix + "-reset")))
      window.resets_at = system_clock::from_time_t(static_cast<std::time_t>(*reset));
    keep(std::move(window));
  }
  for (const auto* kind : {"requests", "tokens"}) {
    sdk::UsageWindow window;
    window.name = kind;
    window.limit = whole_number(header(headers, std::string("x-ratelimit-limit-") + kind));
    window.remaining = whole_number(header(headers, std::string("x-ratelimit-remaining-") + kind));
    if (auto after = parse_duration(header(headers, std::string("x-ratelimit-reset-") + kind)))
      window.resets_at = now + *after;
    keep(std::move(window));
  }
  if (usage.windows.empty()) return std::nullopt;
  return usage;
}

}  // namespace errand::broker
