#include "plugins/chat-discord/gateway_frames.hpp"

#include <boost/json/parse.hpp>
#include "plugins/chat-discord/bounded_number.hpp"
#include "plugins/chat-discord/service_url.hpp"

namespace errand::discord {

namespace json = boost::json;

namespace {

std::optional<std::string> string_in(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

const json::object* object_in(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

}  // namespace

std::optional<GatewayFrame> read_gateway_frame(std::string_view text) {
  boost::system::error_code ec;
  auto parsed = json::parse(text, ec);
  if (ec || !parsed.is_object()) return std::nullopt;
  auto& frame = parsed.as_object();
  const auto* op = frame.if_contains("op");
  if (op == nullptr || !op->is_int64()) return std::nullopt;
  GatewayFrame out;
  out.op = op->as_int64();
  if (const auto* s = frame.if_contains("s"); s && s->is_int64()) out.seq = s->as_int64();
  out.type = string_in(frame, "t");
  if (auto* d = frame.if_contains("d")) {
    if (d->is_object()) out.data = std::move(d->as_object());
    out.data_is_true = d->is_bool() && d->as_bool();
  }
  return out;
}

std::chrono::milliseconds heartbeat_interval_of(const json::object& hello_data) {
  const auto* interval = hello_data.if_contains("heartbeat_interval");
  if (interval == nullptr || !interval->is_number()) return std::chrono::milliseconds(41250);
  constexpr double longest = 3600.0 * 1000;
  return std::chrono::milliseconds(
      static_cast<std::int64_t>(bounded_number(interval->to_number<double>(), 1.0, longest)));
}

ReadyInfo read_ready(const json::object& data) {
  ReadyInfo info;
  info.session_id = string_in(data, "session_id");
  // A resume URL that fails the rule every gateway URL meets would end the transport at the next
  // resume; without one the session resumes on the gateway URL, and the reason is kept to log.
  info.resume_url = string_in(data, "resume_gateway_url");
  if (info.resume_url)
    if (auto usable = parse_service_url(*info.resume_url, UrlRole::gateway); !usable) {
      info.resume_url_refusal = usable.error().message;
      info.resume_url.reset();
    }
  if (const auto* user = object_in(data, "user")) info.user_id = string_in(*user, "id");
  if (const auto* app = object_in(data, "application")) info.application_id = string_in(*app, "id");
  return info;
}

GatewayBotAnswer read_gateway_bot(const json::value& answer) {
  GatewayBotAnswer out;
  if (!answer.is_object()) return out;
  const auto& o = answer.as_object();
  out.url = string_in(o, "url").value_or("");
  const auto* limit = object_in(o, "session_start_limit");
  if (limit == nullptr) return out;
  // Bounded before they become integers: a value out of their range would be undefined, and a
  // wait past a day would overflow the clock (the allowance resets daily).
  if (const auto* mc = limit->if_contains("max_concurrency"); mc && mc->is_number())
    out.max_concurrency =
        static_cast<std::size_t>(bounded_number(mc->to_number<double>(), 1.0, 65536.0));
  const auto* remaining = limit->if_contains("remaining");
  const auto* reset_after = limit->if_contains("reset_after");
  if (remaining && remaining->is_number() && remaining->to_number<double>() <= 0 && reset_after &&
      reset_after->is_number())
    out.start_limit_wait = std::chrono::milliseconds(static_cast<std::int64_t>(
        bounded_number(reset_after->to_number<double>(), 0.0, 86400.0 * 1000)));
  return out;
}

}  // namespace errand::discord
