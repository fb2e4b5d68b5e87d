#pragma once

// Checks of single command arguments, each refusing with a sentence that says what was wrong
// and what would be accepted.

#include <chrono>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::chat {

// The longest grant a duration may give; beyond it, "always" says what is meant.
inline constexpr std::chrono::hours kMaxGrantDuration{24 * 30};

struct GrantArgument {
  std::string host;  // lower case
  sdk::GrantSpan span = sdk::GrantSpan::once;
  std::chrono::seconds duration{0};  // with span == until
};

// "30s", "10m", "2h", "1d" (a whole number and one unit).
sdk::Result<std::chrono::seconds> parse_duration(std::string_view text);

// An exact host name (letters, digits, hyphens, dots) or *.example.com; returned lower-cased.
sdk::Result<std::string> parse_host_pattern(std::string_view text);

// <host> [duration|always]; an absent duration grants once.
sdk::Result<GrantArgument> parse_grant(std::string_view host, std::string_view duration);

// A path argument as typed: surrounding quotes or backticks are taken off.
std::string unquote_path(std::string_view text);

}  // namespace errand::chat
