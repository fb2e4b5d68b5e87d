#include "plugins/chat-discord/service_url.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include "common/address_ranges.hpp"
#include "common/url_port.hpp"

namespace errand::discord {

namespace urls = boost::urls;

namespace {

struct Schemes {
  std::string_view secure;
  std::string_view plain;
};

Schemes schemes_for(UrlRole role) {
  if (role == UrlRole::gateway) return {"wss", "ws"};
  return {"https", "http"};
}

const char* role_name(UrlRole role) {
  switch (role) {
    case UrlRole::rest_base: return "a REST API base URL";
    case UrlRole::gateway: return "a gateway URL";
    case UrlRole::download: return "an attachment URL";
  }
  return "a URL";
}

sdk::Error refused(std::string_view url, const std::string& why) {
  return sdk::make_error("\"" + std::string(url) + "\" " + why, sdk::Error::Kind::refused);
}

}  // namespace

std::string Endpoint::host_header() const {
  const bool v6 = host.find(':') != std::string::npos;
  const std::string name = v6 ? "[" + host + "]" : host;
  const bool default_port = (tls && port == "443") || (!tls && port == "80");
  return default_port ? name : name + ":" + port;
}

std::string Endpoint::target(std::string_view path) const {
  std::string out = base_path + std::string(path);
  if (out.empty()) out = "/";
  if (!query.empty()) out += "?" + query;
  return out;
}

sdk::Result<Endpoint> parse_endpoint(std::string_view url, UrlRole role) {
  // parse_uri, not parse_absolute_uri: the latter refuses a fragment without saying so.
  const auto parsed = urls::parse_uri(url);
  if (!parsed) return refused(url, "is not an absolute URL such as scheme://host/path");
  const auto [secure, plain] = schemes_for(role);
  const auto scheme = parsed->scheme();
  if (scheme != secure && scheme != plain)
    return refused(url, "has the scheme \"" + std::string(scheme) + "\", but " + role_name(role) +
                            " must be " + std::string(secure) + "://" + " (or " +
                            std::string(plain) + ":// to a loopback address)");
  Endpoint e;
  e.tls = scheme == secure;
  if (!parsed->has_authority() || parsed->encoded_host().empty())
    return refused(url, "names no host");
  if (parsed->has_userinfo()) {
    // Named without it: what stands there may be a password.
    const auto shown = urls::url(*parsed).remove_userinfo();
    return refused(shown.buffer(),
                   "was given with user information before the host (user@ or "
                   "user:password@, left out here), which errand does not send; remove it");
  }
  if (parsed->has_fragment())
    return refused(url, "ends in a fragment (#...), which has no meaning in a request; remove it");
  if (parsed->has_query() && role == UrlRole::rest_base)
    return refused(url,
                   "carries a query (?...), but the API's paths are appended to a base URL, so "
                   "it cannot have one; remove it");
  switch (parsed->host_type()) {
    case urls::host_type::ipv6:
      e.host = std::string(parsed->host_address());
      e.host_is_address = true;
      break;
    case urls::host_type::ipv4:
      e.host = std::string(parsed->host_address());
      e.host_is_address = true;
      break;
    case urls::host_type::name: e.host = std::string(parsed->host_name()); break;
    default: return refused(url, "names its host in a form errand cannot connect to");
  }
  if (parsed->has_port()) {
    const auto port = common::read_port(parsed->port());
    if (!port)
      return refused(url, "has the port \"" + std::string(parsed->port()) +
                              "\", which is not a number from 1 to 65535");
    e.port = std::to_string(*port);
  } else {
    e.port = e.tls ? "443" : "80";
  }
  e.base_path = std::string(parsed->encoded_path());
  // Boost.URL 1.81 reads "host:5-b.example" as port 5 and the path "-b.example"; a path after
  // an authority starts with '/', so anything else is a malformed host or port.
  if (!e.base_path.empty() && e.base_path.front() != '/')
    return refused(url, "has \"" + e.base_path +
                            "\" after its host and port, which is neither a port nor a path; a "
                            "port is digits only and a path starts with '/'");
  // A base has the API's paths appended, so "/api/v10/" must not become "/api/v10//channels";
  // any other URL is asked for exactly as it was given.
  if (role == UrlRole::rest_base)
    while (!e.base_path.empty() && e.base_path.back() == '/') e.base_path.pop_back();
  if (parsed->has_query()) e.query = std::string(parsed->encoded_query());
  return e;
}

sdk::Result<Endpoint> parse_service_url(std::string_view url, UrlRole role) {
  auto endpoint = parse_endpoint(url, role);
  if (!endpoint || endpoint->tls || common::is_loopback_literal(endpoint->host)) return endpoint;
  const auto [secure, plain] = schemes_for(role);
  const char* exposed = role == UrlRole::download ? "the file could be read and altered on the way"
                                                  : "the bot token would travel unencrypted";
  return refused(url, "is plain " + std::string(plain) +
                          "://, which is only accepted to a loopback address (127.0.0.1, ::1) "
                          "for a local test server, because " +
                          exposed + "; use " + std::string(secure) + "://");
}

}  // namespace errand::discord
