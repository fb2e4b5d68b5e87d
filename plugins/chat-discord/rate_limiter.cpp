#include "plugins/chat-discord/rate_limiter.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <cmath>
#include <optional>
#include <vector>

#include "plugins/chat-discord/bounded_number.hpp"

namespace errand::discord {

namespace {

using clock = std::chrono::steady_clock;

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::vector<std::string_view> segments_of(std::string_view path) {
  std::vector<std::string_view> out;
  const auto query = path.find('?');
  if (query != std::string_view::npos) path = path.substr(0, query);
  while (!path.empty()) {
    if (path.front() == '/') {
      path.remove_prefix(1);
      continue;
    }
    const auto end = path.find('/');
    out.push_back(path.substr(0, end));
    if (end == std::string_view::npos) break;
    path.remove_prefix(end);
  }
  return out;
}

std::optional<double> parse_double(const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == 0 || !std::isfinite(v)) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

// The most requests a bucket is taken to allow, also the limit of a route without headers.
constexpr int kMaxBucketRequests = 1 << 20;

// A count from a rate-limit header, kept to what a bucket can mean, so a wild value cannot
// overflow the int it is stored in.
int request_count(double value) {
  return static_cast<int>(bounded_number(value, 0.0, static_cast<double>(kMaxBucketRequests)));
}

// A wait from a header or a 429 body, at most a day: a longer one would overflow the clock's
// arithmetic, and no limit Discord documents lasts that long.
clock::duration seconds(double s) {
  return std::chrono::duration_cast<clock::duration>(
      std::chrono::duration<double>(bounded_number(s, 0.0, 86400.0)));
}

}  // namespace

RouteKey route_key_for(boost::beast::http::verb method, std::string_view path) {
  const auto parts = segments_of(path);
  RouteKey key;
  std::string route(boost::beast::http::to_string(method));
  route += ' ';
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto part = parts[i];
    const auto previous = i > 0 ? parts[i - 1] : std::string_view();
    const auto before_previous = i > 1 ? parts[i - 2] : std::string_view();
    std::string shown;
    if ((previous == "channels" || previous == "guilds") && all_digits(part) && i == 1) {
      key.major = std::string(part);
      shown = ":" + std::string(previous.substr(0, previous.size() - 1));
    } else if (previous == "webhooks" && i == 1) {
      key.major = std::string(part);
      shown = ":webhook";
    } else if (before_previous == "webhooks" && i == 2) {
      key.major += ":" + std::string(part);
      shown = ":token";
    } else if (previous == "interactions" && i == 1) {
      key.major = std::string(part);
      shown = ":interaction";
    } else if (before_previous == "interactions" && i == 2) {
      shown = ":token";
    } else if (previous == "reactions") {
      shown = ":emoji";
    } else if (all_digits(part)) {
      shown = ":id";
    } else {
      shown = std::string(part);
    }
    route += '/';
    route += shown;
  }
  if (parts.empty()) route += '/';
  key.route = std::move(route);
  key.global_exempt = !parts.empty() && parts.front() == "interactions";
  return key;
}

RateLimiter::RateLimiter(boost::asio::any_io_executor strand, RateLimitTuning tuning)
    : tuning_(tuning),
      wake_(std::move(strand)),
      global_window_(tuning.global_per_second, std::chrono::seconds(1)) {}

std::string RateLimiter::state_key_for(const RouteKey& key) const {
  if (auto it = route_bucket_.find(key.route); it != route_bucket_.end())
    return "bucket " + it->second + " " + key.major;
  return "route " + key.route + " " + key.major;
}

boost::asio::awaitable<sdk::Result<RateLimiter::Permit>> RateLimiter::acquire(const RouteKey& key) {
  while (true) {
    if (wake_.closed())
      co_return sdk::make_error("the Discord transport is stopping", sdk::Error::Kind::cancelled);
    const auto now = clock::now();
    if (global_until_ > now) {
      stats_.waited += global_until_ - now;
      co_await wake_.sleep_until(global_until_);
      continue;
    }
    const auto state_key = state_key_for(key);
    auto& state = states_[state_key];
    if (state.limit < 0) {
      // Until the first answer says which bucket this is and how big, one request at a time.
      if (state.in_flight > 0) {
        co_await wake_.sleep_until(now + std::chrono::milliseconds(250));
        continue;
      }
    } else if (state.remaining <= 0) {
      if (now < state.reset_at) {
        stats_.waited += state.reset_at - now;
        co_await wake_.sleep_until(state.reset_at);
        continue;
      }
      // The window has passed; requests still in flight count against the new one.
      state.remaining = state.limit - state.in_flight;
      if (state.remaining <= 0) {
        co_await wake_.sleep_until(now + std::chrono::milliseconds(250));
        continue;
      }
    }
    if (!key.global_exempt) {
      const auto next = global_window_.next_allowed(now, global_in_flight_);
      if (next > now) {
        // time_point::max(): the window is full of requests in flight; one finishing wakes us.
        if (next != clock::time_point::max()) stats_.waited += next - now;
        co_await wake_.sleep_until(next);
        continue;
      }
      ++global_in_flight_;
    }
    --state.remaining;
    ++state.in_flight;
    ++stats_.requests;
    co_return Permit{state_key, key, !key.global_exempt};
  }
}

void RateLimiter::finish_global(const Permit& permit) {
  if (!permit.counted_globally) return;
  if (global_in_flight_ > 0) --global_in_flight_;
  global_window_.record(clock::now());
}

void RateLimiter::abandon(const Permit& permit) {
  // Discord may have counted a request whose answer was lost.
  finish_global(permit);
  auto& state = states_[permit.state_key];
  if (state.in_flight > 0) --state.in_flight;
  ++state.remaining;
  wake_.wake_all();
}

bool RateLimiter::complete(const Permit& permit, const HttpReply& reply) {
  finish_global(permit);
  const auto now = clock::now();
  auto* state = &states_[permit.state_key];
  if (state->in_flight > 0) --state->in_flight;

  const auto bucket = reply.header("x-ratelimit-bucket");
  if (!bucket.empty()) {
    const auto known = route_bucket_.find(permit.key.route);
    if (known == route_bucket_.end() || known->second != bucket) {
      route_bucket_[permit.key.route] = bucket;
      auto& learned = states_[state_key_for(permit.key)];
      learned.in_flight += state->in_flight;
      state = &learned;
    }
  }
  const auto limit = parse_double(reply.header("x-ratelimit-limit"));
  const auto remaining = parse_double(reply.header("x-ratelimit-remaining"));
  const auto reset_after = parse_double(reply.header("x-ratelimit-reset-after"));
  if (limit && remaining && reset_after) {
    state->limit = request_count(*limit);
    // Requests still in flight were not counted in this answer yet.
    state->remaining = request_count(*remaining) - state->in_flight;
    state->reset_at = now + seconds(*reset_after) + tuning_.reset_margin;
  } else if (state->limit < 0) {
    // A route without limit headers is limited only globally.
    state->limit = kMaxBucketRequests;
    state->remaining = state->limit;
  }

  bool limited = false;
  if (reply.status == 429) {
    limited = true;
    double retry_after = parse_double(reply.header("retry-after")).value_or(1.0);
    bool global = reply.header("x-ratelimit-global") == "true" ||
                  reply.header("x-ratelimit-scope") == "global";
    boost::system::error_code ec;
    const auto body = boost::json::parse(reply.body, ec);
    if (!ec && body.is_object()) {
      const auto& o = body.as_object();
      if (const auto* v = o.if_contains("retry_after"); v && v->is_number())
        retry_after = v->to_number<double>();
      if (const auto* v = o.if_contains("global"); v && v->is_bool())
        global = global || v->as_bool();
    }
    const auto until = now + seconds(retry_after) + tuning_.reset_margin;
    if (global) {
      ++stats_.global_429;
      global_until_ = std::max(global_until_, until);
    } else {
      ++stats_.bucket_429;
      state->remaining = 0;
      state->reset_at = std::max(state->reset_at, until);
      if (state->limit < 0) state->limit = 1;
    }
  }
  wake_.wake_all();
  return limited;
}

void RateLimiter::close() {
  wake_.close();
}

}  // namespace errand::discord
