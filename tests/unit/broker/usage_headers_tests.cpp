#include "plugins/broker/provider/usage_headers.hpp"

#include <catch2/catch_test_macros.hpp>

using errand::broker::parse_duration;
using errand::broker::parse_rfc3339;
using errand::broker::usage_from_headers;
using std::chrono::system_clock;
namespace http = boost::beast::http;

namespace {

std::time_t seconds_of(system_clock::time_point at) {
  return system_clock::to_time_t(at);
}

const errand::sdk::UsageWindow* window(const errand::sdk::ProviderUsage& usage,
                                       const std::string& name) {
  for (const auto& w : usage.windows)
    if (w.name == name) return &w;
  return nullptr;
}

}  // namespace

TEST_CASE("RFC 3339 times are read with fractions and offsets, and nothing else is", "[usage]") {
  CHECK(seconds_of(*parse_rfc3339("2025-08-21T12:40:59Z")) == 1755780059);
  CHECK(seconds_of(*parse_rfc3339("2025-08-21T14:40:59+02:00")) == 1755780059);
  CHECK(seconds_of(*parse_rfc3339("2025-08-21T12:40:59.750Z")) == 1755780059);
  const auto fraction =
      *parse_rfc3339("2025-08-21T12:40:59.750Z") - *parse_rfc3339("2025-08-21T12:40:59Z");
  CHECK(fraction == std::chrono::milliseconds(750));
  for (const char* bad : {"", "2025-08-21", "2025-08-21T12:40:59", "2025-13-21T12:40:59Z",
                          "2025-08-21T12:40:59Zjunk", "tomorrow", "2025-08-21T12:4O:59Z"})
    CHECK_FALSE(parse_rfc3339(bad).has_value());
}

TEST_CASE("OpenAI's reset durations are read in hours, minutes, seconds and milliseconds",
          "[usage]") {
  using std::chrono::milliseconds;
  CHECK(parse_duration("6m0s") == milliseconds(360000));
  CHECK(parse_duration("1h2m3.5s") == milliseconds(3723500));
  CHECK(parse_duration("12ms") == milliseconds(12));
  CHECK(parse_duration("20") == milliseconds(20000));
  for (const char* bad : {"", "6 m", "soon", "5d", "-1s", "1s2x"})
    CHECK_FALSE(parse_duration(bad).has_value());
}

TEST_CASE("Anthropic's request, token and subscription windows are read from an answer",
          "[usage]") {
  http::fields headers;
  headers.set("anthropic-ratelimit-requests-limit", "1000");
  headers.set("anthropic-ratelimit-requests-remaining", "999");
  headers.set("anthropic-ratelimit-requests-reset", "2025-08-21T12:40:59Z");
  headers.set("anthropic-ratelimit-tokens-limit", "96000");
  headers.set("anthropic-ratelimit-tokens-remaining", "not a number");
  headers.set("anthropic-ratelimit-unified-5h-utilization", "0.42");
  headers.set("anthropic-ratelimit-unified-5h-reset", "1755800000");
  const auto now = system_clock::from_time_t(1755780000);
  const auto usage = usage_from_headers("anthropic", headers, now);
  REQUIRE(usage);
  CHECK(usage->provider == "anthropic");
  CHECK(usage->observed_at == now);
  const auto* requests = window(*usage, "requests");
  REQUIRE(requests);
  CHECK(requests->limit == std::optional<std::uint64_t>(1000));
  CHECK(requests->remaining == std::optional<std::uint64_t>(999));
  CHECK(seconds_of(*requests->resets_at) == 1755780059);
  const auto* tokens = window(*usage, "tokens");
  REQUIRE(tokens);
  CHECK(tokens->limit == std::optional<std::uint64_t>(96000));
  CHECK_FALSE(tokens->remaining.has_value());  // unreadable values are left out, not guessed
  const auto* five_hours = window(*usage, "5-hour");
  REQUIRE(five_hours);
  CHECK(*five_hours->used_fraction == 0.42);
  CHECK(seconds_of(*five_hours->resets_at) == 1755800000);
  CHECK(window(*usage, "7-day") == nullptr);
}

TEST_CASE("OpenAI's windows reset a duration after the answer", "[usage]") {
  http::fields headers;
  headers.set("x-ratelimit-limit-requests", "500");
  headers.set("x-ratelimit-remaining-requests", "499");
  headers.set("x-ratelimit-reset-requests", "6m0s");
  const auto now = system_clock::from_time_t(1755780000);
  const auto usage = usage_from_headers("openai", headers, now);
  REQUIRE(usage);
  REQUIRE(usage->windows.size() == 1);
  CHECK(usage->windows[0].remaining == std::optional<std::uint64_t>(499));
  CHECK(*usage->windows[0].resets_at == now + std::chrono::minutes(6));
}

TEST_CASE("an answer without limit headers reports nothing", "[usage]") {
  http::fields headers;
  headers.set("content-type", "application/json");
  headers.set("x-ratelimit-remaining-requests", "");
  CHECK_FALSE(usage_from_headers("anthropic", headers, system_clock::now()).has_value());
}
