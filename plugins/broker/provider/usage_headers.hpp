#pragma once

// Reads the limits a provider reports on every answer, so `!usage` can say how much of a
// window is left and when it is full again without a call of its own. Anthropic sends
// anthropic-ratelimit-<kind>-{limit,remaining,reset} with RFC 3339 resets, and on subscription
// plans anthropic-ratelimit-unified-<window>-{utilization,reset} with Unix-time resets; OpenAI
// sends x-ratelimit-{limit,remaining,reset}-<kind> with resets as durations ("6m0s", "12ms").
// Values that do not parse are left out rather than guessed.

#include <boost/beast/http/fields.hpp>
#include <chrono>
#include <errand/sdk/egress_broker.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace errand::broker {

// Nothing when the answer carries no limit the broker can read.
std::optional<sdk::ProviderUsage> usage_from_headers(const std::string& provider,
                                                     const boost::beast::http::fields& headers,
                                                     std::chrono::system_clock::time_point now);

// Exposed for tests. "2025-08-21T12:40:59Z", fractional seconds and numeric offsets allowed.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);
// "6m0s", "1h2m3.5s", "12ms", "20s"; a plain number is seconds.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace errand::broker
