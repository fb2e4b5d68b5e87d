#include "core/sessions/usage_report.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::sdk::ProviderUsage;
using errand::sdk::UsageWindow;
using errand::sessions::describe_usage;
using errand::sessions::UsageByProvider;
using std::chrono::system_clock;

namespace {

// 2025-08-21 12:40:00 UTC
const auto kNow = system_clock::from_time_t(1755780000);

UsageWindow counted(std::string name, std::uint64_t limit, std::uint64_t remaining,
                    std::chrono::seconds reset_in) {
  UsageWindow w;
  w.name = std::move(name);
  w.limit = limit;
  w.remaining = remaining;
  w.resets_at = kNow + reset_in;
  return w;
}

}  // namespace

TEST_CASE("!usage says what the configured provider last reported, window by window") {
  ProviderUsage anthropic;
  anthropic.provider = "anthropic";
  anthropic.observed_at = kNow - std::chrono::seconds(30);
  anthropic.windows.push_back(counted("requests", 1000, 999, std::chrono::seconds(59)));
  UsageWindow five_hours;
  five_hours.name = "5-hour";
  five_hours.used_fraction = 0.42;
  five_hours.resets_at = kNow + std::chrono::hours(4) + std::chrono::minutes(7);
  anthropic.windows.push_back(five_hours);
  UsageByProvider usage{{"anthropic", anthropic}};

  const auto text = describe_usage(usage, "anthropic", kNow);
  CHECK_THAT(text, StartsWith("provider `anthropic`, from its answer at 12:39:30 UTC:"));
  CHECK_THAT(text, ContainsSubstring("- requests: 999 of 1000 left; resets 12:40:59 UTC (in 59s)"));
  CHECK_THAT(text, ContainsSubstring("- 5-hour: 42% used; resets 16:47:00 UTC (in 4h 7m)"));
}

TEST_CASE("!usage says when nothing has been reported, and flags a reset already past") {
  ProviderUsage openai;
  openai.provider = "openai";
  openai.observed_at = kNow - std::chrono::minutes(10);
  openai.windows.push_back(counted("tokens", 30000, 100, -std::chrono::seconds(300)));
  UsageByProvider usage{{"openai", openai}};

  const auto text = describe_usage(usage, "anthropic", kNow);
  CHECK_THAT(text, StartsWith("provider `anthropic` has not reported its limits since errand "
                              "started"));
  CHECK_THAT(text, ContainsSubstring("ask again after a session's first turn"));
  // Another provider that did report is still shown, after the configured one.
  CHECK_THAT(text, ContainsSubstring("provider `openai`, from its answer at 12:30:00 UTC:"));
  CHECK_THAT(text, ContainsSubstring("- tokens: 100 of 30000 left; resets 12:35:00 UTC, already "
                                     "past, so this figure may be stale"));
}
