#include "core/sessions/usage_report.hpp"

#include <fmt/format.h>
#include <cmath>
#include <ctime>

namespace errand::sessions {

namespace {

using std::chrono::system_clock;

std::string clock_time(system_clock::time_point at) {
  const std::time_t t = system_clock::to_time_t(at);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  return fmt::format("{:02}:{:02}:{:02} UTC", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string span(std::chrono::seconds s) {
  const auto n = s.count();
  if (n < 60) return fmt::format("{}s", n);
  if (n < 3600) return fmt::format("{}m {}s", n / 60, n % 60);
  if (n < 86400) return fmt::format("{}h {}m", n / 3600, (n % 3600) / 60);
  return fmt::format("{}d {}h", n / 86400, (n % 86400) / 3600);
}

std::string when(system_clock::time_point at, system_clock::time_point now) {
  if (at <= now) return clock_time(at) + ", already past, so this figure may be stale";
  return fmt::format("{} (in {})", clock_time(at),
                     span(std::chrono::ceil<std::chrono::seconds>(at - now)));
}

std::string window_line(const sdk::UsageWindow& w, system_clock::time_point now) {
  std::string line = "- " + w.name + ": ";
  if (w.remaining && w.limit) {
    line += fmt::format("{} of {} left", *w.remaining, *w.limit);
  } else if (w.remaining) {
    line += fmt::format("{} left", *w.remaining);
  } else if (w.used_fraction) {
    line += fmt::format("{}% used", std::lround(*w.used_fraction * 100));
  } else if (w.limit) {
    line += fmt::format("limit {}", *w.limit);
  } else {
    line += "no count given";
  }
  if (w.resets_at) line += "; resets " + when(*w.resets_at, now);
  return line;
}

std::string provider_block(const sdk::ProviderUsage& usage, system_clock::time_point now) {
  std::string text = fmt::format("provider `{}`, from its answer at {}:", usage.provider,
                                 clock_time(usage.observed_at));
  for (const auto& window : usage.windows) text += "\n" + window_line(window, now);
  return text;
}

}  // namespace

std::string describe_usage(const UsageByProvider& usage, const std::string& configured,
                           system_clock::time_point now) {
  std::string text;
  if (const auto it = usage.find(configured); it != usage.end()) {
    text = provider_block(it->second, now);
  } else {
    text = fmt::format(
        "provider `{}` has not reported its limits since errand started: they are read from "
        "the headers of its own answers as sessions call it (errand makes no call just to "
        "ask unless `!usage refresh` asks for one), so ask again after a session's first turn",
        configured);
  }
  for (const auto& [name, reported] : usage)
    if (name != configured) text += "\n" + provider_block(reported, now);
  return text;
}

}  // namespace errand::sessions
