#pragma once

// Host names as the broker compares them, and the allowlist they are matched against.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::broker {

// Lower-cases a host, drops one trailing dot and the brackets of an IPv6 literal. Returns
// nothing when it is neither a DNS name (letters, digits, '-', '_', dots, labels of 1-63
// bytes, 253 at most) nor an IP literal; a leading "*." is kept only when allow_wildcard.
std::optional<std::string> normalise_host(std::string_view host, bool allow_wildcard = false);

bool is_ip_literal(std::string_view host);

// True for one exact host name or IP literal: the only thing a refusal suggests granting.
bool is_single_exact_name(std::string_view host);

// "*" matches any host, "*.example.com" any name beneath example.com (not example.com
// itself), anything else only that exact name. Both sides are normalised first.
bool host_pattern_matches(std::string_view pattern, std::string_view host);

class HostAllowlist {
 public:
  HostAllowlist() = default;
  explicit HostAllowlist(std::vector<std::string> patterns);
  // The first pattern that matches, for the log; nothing when none does.
  std::optional<std::string> match(std::string_view host) const;
  const std::vector<std::string>& patterns() const noexcept { return patterns_; }

 private:
  std::vector<std::string> patterns_;
};

}  // namespace errand::broker
