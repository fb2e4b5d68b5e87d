#pragma once

// What the access secret a request carries decides, once the Host and Origin checks
// (request_checks.hpp) have let it by. The address `errand run` prints carries a secret in its
// query (?access=...); a GET of it is answered with a 303 to the same path without it and a
// cookie holding it (HttpOnly, so the page's scripts never see it; SameSite=Strict, so another
// site's page cannot send it). After that every request, API calls and event streams included,
// carries the cookie, or, from a program, "Authorization: Bearer <secret>". The operator's secret
// reads and changes; the observer's only reads.

#include "core/web/access/access_secrets.hpp"
#include "core/web/http/web_http.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace errand::web {

struct AccessDoor {
  // errand-access-<port>: browsers share a host's cookies among all its ports, so the name
  // keeps two interfaces on one host (or a test's) from taking each other's.
  std::string cookie_name;
  bool secure = false;  // reached over https (web.publicUrl): the cookie is sent on https only
};

AccessDoor access_door(unsigned port, bool secure);

struct AccessVerdict {
  std::optional<HttpResponse> answer;  // the 303 or 403 that ends the request here
  Access access = Access::observer;    // what the request may do when there is no answer
};

AccessVerdict judge_access(const HttpRequest& request, const AccessSecrets& secrets,
                           const AccessDoor& door);

inline constexpr std::string_view kAccessParameter = "access";

// address (http://host:port/) with the secret in its query: what a person opens.
std::string address_with_secret(const std::string& address, std::string_view secret);

}  // namespace errand::web
