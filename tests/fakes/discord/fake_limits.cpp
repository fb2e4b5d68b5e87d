#include <cmath>
#include <cstdio>

#include "fake_impl.hpp"

namespace errand::fake_discord {

namespace json = boost::json;

namespace {

// Seconds with three decimals, rounded up so a client that waits exactly this long is never
// early.
std::string seconds_text(steady::duration d) {
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f",
                static_cast<double>(std::max<long long>(ms, 0)) / 1000.0);
  return buffer;
}

// The Unix time, in seconds with three decimals, at which a window that ends after d resets.
std::string reset_epoch_text(steady::duration d) {
  const auto at = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch() +
      std::chrono::ceil<std::chrono::milliseconds>(d));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%lld.%03lld", static_cast<long long>(at.count() / 1000),
                static_cast<long long>(at.count() % 1000));
  return buffer;
}

double seconds_value(steady::duration d) {
  return static_cast<double>(std::chrono::ceil<std::chrono::milliseconds>(d).count()) / 1000.0;
}

struct BucketRule {
  std::string bucket;
  std::string major;
  int limit = 50;
  steady::duration window = std::chrono::seconds(1);
};

BucketRule rule_for(const std::string& method, const std::vector<std::string>& s,
                    const FakeOptions& options) {
  BucketRule rule;
  std::string route = method;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool id = !s[i].empty() && std::all_of(s[i].begin(), s[i].end(), ::isdigit);
    const bool token_part = i == 2 && (s[0] == "webhooks" || s[0] == "interactions");
    const bool emoji = i > 0 && s[i - 1] == "reactions";
    route += "/" + (id || token_part || emoji ? std::string(":x") : s[i]);
  }
  if (s.size() >= 2 &&
      (s[0] == "channels" || s[0] == "guilds" || s[0] == "webhooks" || s[0] == "interactions"))
    rule.major = s[1];
  if (method == "POST" && s.size() == 3 && s[0] == "channels" && s[2] == "messages") {
    rule.bucket = "80c17d2f203122d936070c88c8d10f33";
    rule.limit = options.channel_messages_per_window;
    rule.window = options.channel_window;
  } else if (s.size() >= 5 && s[0] == "channels" && s[4] == "reactions") {
    rule.bucket = "c5fa1a1e3a2e9f0c3f7b0d9a4e6b8d21";
    rule.limit = 1;
    rule.window = std::chrono::milliseconds(250);
  } else {
    // A stable made-up hash per route, as Discord's bucket ids look.
    rule.bucket = "r" + std::to_string(std::hash<std::string>{}(route) % 1000000007ULL);
  }
  return rule;
}

std::string server_error_reason(unsigned status) {
  switch (status) {
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Server Error";
  }
}

}  // namespace

std::optional<ResponseParts> FakeDiscord::Impl::injected_server_error(const std::string& method,
                                                                      const std::string& path) {
  for (auto& injected : injected_errors_) {
    if (injected.count <= 0) continue;
    if (!injected.method.empty() && injected.method != method) continue;
    if (path.rfind(injected.path_prefix, 0) != 0) continue;
    --injected.count;
    ResponseParts r;
    r.status = injected.status;
    r.body = discord_error(
        0, std::to_string(injected.status) + ": " + server_error_reason(injected.status));
    return r;
  }
  return std::nullopt;
}

std::optional<ResponseParts> FakeDiscord::Impl::check_limits(
    const std::string& method, const std::string& path, const std::vector<std::string>& segments,
    std::vector<std::pair<std::string, std::string>>& bucket_headers) {
  const auto now = steady::now();
  const auto rule = rule_for(method, segments, options_);
  const auto too_many = [&](double retry_after, bool global) {
    ++rate_limited_;
    ResponseParts r;
    r.status = 429;
    r.body = json::object{{"message", "You are being rate limited."},
                          {"retry_after", retry_after},
                          {"global", global}};
    r.headers.emplace_back("Retry-After",
                           std::to_string(static_cast<long long>(std::ceil(retry_after))));
    r.headers.emplace_back("X-RateLimit-Scope", global ? "global" : "user");
    if (global) {
      r.headers.emplace_back("X-RateLimit-Global", "true");
    } else {
      const auto wait =
          std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(retry_after));
      r.headers.emplace_back("X-RateLimit-Limit", std::to_string(rule.limit));
      r.headers.emplace_back("X-RateLimit-Remaining", "0");
      r.headers.emplace_back("X-RateLimit-Reset-After", seconds_text(wait));
      r.headers.emplace_back("X-RateLimit-Reset", reset_epoch_text(wait));
      r.headers.emplace_back("X-RateLimit-Bucket", rule.bucket);
    }
    return r;
  };

  for (auto& injected : injected_) {
    if (injected.count <= 0) continue;
    if (!injected.method.empty() && injected.method != method) continue;
    if (path.rfind(injected.path_prefix, 0) != 0) continue;
    --injected.count;
    return too_many(injected.retry_after, injected.global);
  }

  const bool exempt =
      !segments.empty() && (segments[0] == "interactions" || segments[0] == "webhooks");
  if (!exempt) {
    while (!global_window_.empty() && global_window_.front() + std::chrono::seconds(1) <= now)
      global_window_.pop_front();
    if (static_cast<int>(global_window_.size()) >= options_.global_per_second)
      return too_many(seconds_value(global_window_.front() + std::chrono::seconds(1) - now), true);
    global_window_.push_back(now);
  }

  auto& window = windows_[rule.bucket + ":" + rule.major];
  if (window.used == 0 || now >= window.start + rule.window) {
    window.start = now;
    window.used = 0;
  }
  if (window.used >= rule.limit)
    return too_many(seconds_value(window.start + rule.window - now), false);
  ++window.used;
  const auto reset_after = window.start + rule.window - now;
  bucket_headers.emplace_back("X-RateLimit-Limit", std::to_string(rule.limit));
  bucket_headers.emplace_back("X-RateLimit-Remaining", std::to_string(rule.limit - window.used));
  bucket_headers.emplace_back("X-RateLimit-Reset-After", seconds_text(reset_after));
  bucket_headers.emplace_back("X-RateLimit-Reset", reset_epoch_text(reset_after));
  bucket_headers.emplace_back("X-RateLimit-Bucket", rule.bucket);
  return std::nullopt;
}

}  // namespace errand::fake_discord
