#include "core/web/http/request_checks.hpp"

#include "common/ascii_case.hpp"
#include "core/web/http/bind_address.hpp"

#include <fmt/format.h>
#include <boost/beast/core/string.hpp>

#include <algorithm>

namespace errand::web {
namespace http = boost::beast::http;

namespace {

// An address as a Host header or an origin writes it: IPv6 in brackets, without a scope id
// (a browser never sends one).
std::string host_text(const boost::asio::ip::address& address) {
  if (address.is_v4()) return address.to_string();
  auto v6 = address.to_v6();
  v6.scope_id(0);
  return "[" + v6.to_string() + "]";
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool listed(const std::vector<std::string>& allowed, std::string_view value) {
  const auto lower = common::ascii_lower(trimmed(value));
  return std::find(allowed.begin(), allowed.end(), lower) != allowed.end();
}

// Long or odd header values are cut and quoted so the sentence stays readable.
std::string shown(std::string_view value) {
  constexpr std::size_t kLongest = 200;
  if (value.size() > kLongest) return fmt::format("{}...", value.substr(0, kLongest));
  return std::string(value);
}

bool is_json(std::string_view content_type) {
  const auto media_type = trimmed(content_type.substr(0, content_type.find(';')));
  return boost::beast::iequals(media_type, "application/json");
}

HttpResponse forbidden(std::string sentence) {
  return json_error(http::status::forbidden, sentence);
}

}  // namespace

sdk::Result<Allowed> allowed_for(const boost::asio::ip::address& bound, std::uint16_t port,
                                 const std::optional<std::string>& public_url, bool observer) {
  Allowed allowed;
  allowed.observer = observer;
  for (const auto& host : {host_text(bound), std::string("localhost")}) {
    allowed.hosts.push_back(fmt::format("{}:{}", host, port));
    allowed.origins.push_back(fmt::format("http://{}:{}", host, port));
  }
  if (!public_url) return allowed;
  auto reached = public_origin_of(*public_url);
  if (!reached)
    return sdk::make_error("web.publicUrl " + reached.error().message, sdk::Error::Kind::refused);
  allowed.hosts.push_back(std::move(reached->host));
  allowed.origins.push_back(std::move(reached->origin));
  return allowed;
}

std::optional<HttpResponse> refuse_request(const HttpRequest& request, const Allowed& allowed) {
  const auto host = request[http::field::host];
  if (host.empty()) {
    return forbidden(fmt::format(
        "the request has no Host header; open this interface at {} instead", allowed.origins[0]));
  }
  if (!listed(allowed.hosts, host)) {
    return forbidden(fmt::format(
        "the request's Host {} is not this interface's; a foreign Host is how a page from "
        "another site reaches a local server by DNS rebinding, so open the interface at {}",
        shown(host), allowed.origins[0]));
  }
  const auto method = request.method();
  if (method == http::verb::get || method == http::verb::head) return std::nullopt;
  if (allowed.observer) return forbidden("this interface is an observer and changes nothing");
  const auto origin = request[http::field::origin];
  if (origin.empty()) {
    return forbidden(
        "the request changes something but has no Origin header; only this interface's own "
        "page may change anything, and a browser names the page in Origin");
  }
  if (!listed(allowed.origins, origin)) {
    return forbidden(fmt::format(
        "the request's Origin {} is not this interface's; a page from another site cannot "
        "drive errand",
        shown(origin)));
  }
  const auto content_type = request[http::field::content_type];
  if (!is_json(content_type)) {
    return forbidden(fmt::format(
        "the request's body is {}, not application/json; form posts are refused, so that a "
        "form on another site cannot submit one",
        content_type.empty() ? std::string("untyped") : shown(content_type)));
  }
  return std::nullopt;
}

}  // namespace errand::web
