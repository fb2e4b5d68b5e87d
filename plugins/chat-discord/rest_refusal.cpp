#include "plugins/chat-discord/rest_refusal.hpp"

#include <boost/json/parse.hpp>

namespace errand::discord {

namespace {

// Discord's error body: {"message": ..., "code": ..., "errors": {...}}; the first nested
// _errors message says which field was wrong.
std::string first_field_error(const boost::json::value& v, const std::string& path) {
  if (!v.is_object()) return {};
  const auto& o = v.as_object();
  if (const auto* list = o.if_contains("_errors"); list && list->is_array()) {
    for (const auto& e : list->as_array())
      if (e.is_object())
        if (const auto* m = e.as_object().if_contains("message"); m && m->is_string())
          return path + ": " + std::string(m->as_string());
  }
  for (const auto& [key, child] : o) {
    auto found =
        first_field_error(child, path.empty() ? std::string(key) : path + "." + std::string(key));
    if (!found.empty()) return found;
  }
  return {};
}

}  // namespace

std::string describe_refusal(const HttpReply& reply) {
  boost::system::error_code ec;
  const auto body = boost::json::parse(reply.body, ec);
  std::string what = "HTTP " + std::to_string(reply.status);
  if (!ec && body.is_object()) {
    const auto& o = body.as_object();
    if (const auto* m = o.if_contains("message"); m && m->is_string())
      what += " " + std::string(m->as_string());
    // Discord's codes are integers; another number (5.035, 1e30) is not one, and reading it as
    // one must not throw out of the error path.
    boost::json::error_code ec;
    if (const auto* c = o.if_contains("code"); c && c->is_number())
      if (const auto code = c->to_number<long long>(ec); !ec && code != 0)
        what += " (Discord code " + std::to_string(code) + ")";
    if (const auto* errors = o.if_contains("errors")) {
      const auto detail = first_field_error(*errors, "");
      if (!detail.empty()) what += ": " + detail;
    }
  }
  return what;
}

}  // namespace errand::discord
