#include "core/web/access/access_check.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <fmt/format.h>

namespace errand::web {

namespace http = boost::beast::http;

namespace {

// Cookies and browsers keep the cookie for 30 days; a rotation ends it sooner.
constexpr int kCookieSeconds = 30 * 24 * 3600;

bool same_secret(std::string_view presented, const std::string& secret) {
  return presented.size() == secret.size() &&
         CRYPTO_memcmp(presented.data(), secret.data(), secret.size()) == 0;
}

std::optional<Access> access_of(std::string_view presented, const AccessSecrets& secrets) {
  if (same_secret(presented, secrets.operator_secret)) return Access::operator_;
  if (same_secret(presented, secrets.observer_secret)) return Access::observer;
  return std::nullopt;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The value of the named cookie in a Cookie header ("a=1; b=2"), if it is there.
std::optional<std::string_view> cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto end = header.find(';');
    const auto pair = trimmed(header.substr(0, end));
    const auto equals = pair.find('=');
    if (equals != std::string_view::npos && trimmed(pair.substr(0, equals)) == name)
      return trimmed(pair.substr(equals + 1));
    if (end == std::string_view::npos) break;
    header.remove_prefix(end + 1);
  }
  return std::nullopt;
}

// The secret the request presents: its cookie, else a bearer token.
std::optional<std::string_view> presented_secret(const HttpRequest& request,
                                                 const AccessDoor& door) {
  for (const auto& field : request) {
    if (field.name() != http::field::cookie) continue;
    if (auto value = cookie_value(field.value(), door.cookie_name)) return value;
  }
  const auto authorization = trimmed(request[http::field::authorization]);
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() > kBearer.size() &&
      std::equal(kBearer.begin(), kBearer.end(), authorization.begin(),
                 [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
    return trimmed(authorization.substr(kBearer.size()));
  return std::nullopt;
}

HttpResponse refused(std::string_view sentence) {
  return json_error(http::status::forbidden, sentence);
}

// The 303 that trades the secret in the address for the cookie: the same path, the secret
// left out of the query, so it is neither in the address bar nor in the history afterwards.
HttpResponse trade_for_cookie(boost::urls::url target, std::string_view secret,
                              const AccessDoor& door) {
  target.params().erase(kAccessParameter);
  if (target.params().empty()) target.remove_query();
  const std::string location(target.buffer().data(), target.buffer().size());
  HttpResponse response;
  response.status = http::status::see_other;
  response.content_type = "text/plain; charset=utf-8";
  response.body = "The access secret is now a cookie of this browser's; on to " + location + "\n";
  response.headers.emplace_back("Location", location);
  response.headers.emplace_back(
      "Set-Cookie",
      fmt::format("{}={}; Path=/; Max-Age={}; HttpOnly; SameSite=Strict{}", door.cookie_name,
                  secret, kCookieSeconds, door.secure ? "; Secure" : ""));
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

}  // namespace

AccessDoor access_door(unsigned port, bool secure) {
  return AccessDoor{fmt::format("errand-access-{}", port), secure};
}

AccessVerdict judge_access(const HttpRequest& request, const AccessSecrets& secrets,
                           const AccessDoor& door) {
  const bool reads = request.method() == http::verb::get || request.method() == http::verb::head;
  if (reads) {
    if (auto target = boost::urls::parse_origin_form(request.target())) {
      const auto params = target->params();
      if (auto in_address = params.find(kAccessParameter); in_address != params.end()) {
        const auto value = (*in_address).value;
        const std::string secret(value.data(), value.size());
        if (!access_of(secret, secrets))
          return {refused("the access secret in this address is not this interface's; it may "
                          "have been rotated: `errand web-access` prints the current address"),
                  Access::observer};
        return {trade_for_cookie(boost::urls::url(*target), secret, door), Access::observer};
      }
    }
  }
  const auto presented = presented_secret(request, door);
  if (!presented)
    return {refused("this request carries no access secret: open the address `errand run` "
                    "printed (it ends in ?access=...; `errand web-access` prints it again), or "
                    "send the secret as \"Authorization: Bearer <secret>\""),
            Access::observer};
  const auto access = access_of(*presented, secrets);
  if (!access)
    return {refused("the access secret this request carries is not this interface's; it may "
                    "have been rotated: `errand web-access` prints the current address"),
            Access::observer};
  if (*access == Access::observer && !reads)
    return {refused("the observer's access secret only reads; changing anything takes the "
                    "operator's address"),
            Access::observer};
  return {std::nullopt, *access};
}

std::string address_with_secret(const std::string& address, std::string_view secret) {
  return address + "?" + std::string(kAccessParameter) + "=" + std::string(secret);
}

}  // namespace errand::web
