#include "plugins/broker/relay/request_head.hpp"

#include "plugins/broker/admission/credentials.hpp"
#include "plugins/broker/admission/host_names.hpp"

#include <fmt/format.h>
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/url/parse.hpp>
#include <charconv>

namespace errand::broker {
namespace http = boost::beast::http;
namespace {

std::optional<std::uint16_t> parse_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value == 0 || value > 65535)
    return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

std::variant<ClassifiedRequest, RequestRefusal> classify_connect(std::string_view target,
                                                                 ClassifiedRequest out) {
  std::string_view host_part, port_part;
  if (!target.empty() && target.front() == '[') {
    const auto close = target.find(']');
    if (close == std::string_view::npos || close + 1 >= target.size() || target[close + 1] != ':')
      return RequestRefusal{"a CONNECT target is host:port, with an IPv6 address in brackets"};
    host_part = target.substr(0, close + 1);
    port_part = target.substr(close + 2);
  } else {
    const auto colon = target.rfind(':');
    if (colon == std::string_view::npos)
      return RequestRefusal{"a CONNECT target is host:port; this one has no port"};
    host_part = target.substr(0, colon);
    port_part = target.substr(colon + 1);
  }
  const auto port = parse_port(port_part);
  if (!port) return RequestRefusal{"the CONNECT target's port is not a number from 1 to 65535"};
  const auto host = normalise_host(host_part);
  if (!host)
    return RequestRefusal{fmt::format("the CONNECT target's host is not a host name or address")};
  out.form = RequestForm::connect;
  out.host = *host;
  out.port = *port;
  out.host_is_literal = is_ip_literal(host_part);
  return out;
}

std::variant<ClassifiedRequest, RequestRefusal> classify_absolute(std::string_view target,
                                                                  ClassifiedRequest out) {
  const auto url = boost::urls::parse_absolute_uri(target);
  if (!url) return RequestRefusal{"the request target is not a well-formed absolute URL"};
  if (url->scheme_id() != boost::urls::scheme::http) {
    return RequestRefusal{
        "only plain http:// URLs are proxied as requests; https goes through CONNECT"};
  }
  if (url->has_userinfo())
    return RequestRefusal{"the URL carries user information, which is not forwarded"};
  // Found by the fuzzer: a port followed by letters ("host:80ET/x") parses with the letters as
  // a path that does not begin with '/'. Such a URL means nothing a server would agree on.
  const std::string_view url_path = url->encoded_path();
  if (!url_path.empty() && url_path.front() != '/')
    return RequestRefusal{"the URL's authority is malformed (its port is not a number)"};
  std::string_view host_text = url->encoded_host_address();
  if (host_text.empty()) return RequestRefusal{"the URL names no host"};
  const auto host = normalise_host(host_text);
  if (!host) return RequestRefusal{"the URL's host is not a host name or address"};
  std::uint16_t port = 80;
  if (url->has_port()) {
    const auto parsed = parse_port(url->port());
    if (!parsed) return RequestRefusal{"the URL's port is not a number from 1 to 65535"};
    port = *parsed;
  }
  out.form = RequestForm::absolute_http;
  out.host = *host;
  out.port = port;
  out.host_is_literal = is_ip_literal(host_text);
  const std::string_view path = url->encoded_path();
  out.origin_target =
      fmt::format("{}{}{}", path.empty() ? std::string_view("/") : path,
                  url->has_query() ? "?" : "", std::string_view(url->encoded_query()));
  return out;
}

}  // namespace

std::variant<ClassifiedRequest, RequestRefusal> classify_request(
    const http::request_header<>& head) {
  ClassifiedRequest out;
  const auto auth = head.find(http::field::proxy_authorization);
  if (auth != head.end()) out.proxy_password = basic_auth_password(auth->value());
  const std::string_view target = head.target();
  if (head.method() == http::verb::connect) return classify_connect(target, std::move(out));
  if (target.starts_with("/")) {
    out.form = RequestForm::origin;
    out.origin_target = std::string(target);
    return out;
  }
  if (target.find("://") != std::string_view::npos)
    return classify_absolute(target, std::move(out));
  return RequestRefusal{
      "the request target is neither a path, an absolute http:// URL, nor a CONNECT host:port"};
}

std::optional<std::variant<ClassifiedRequest, RequestRefusal>> parse_request_head(
    std::string_view bytes) {
  http::request_parser<http::empty_body> parser;
  parser.header_limit(kRequestHeadLimit);
  parser.eager(false);
  boost::system::error_code ec;
  std::size_t used = 0;
  while (!parser.is_header_done()) {
    const std::size_t n =
        parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    used += n;
    if (ec == http::error::need_more) return std::nullopt;
    if (ec) return RequestRefusal{fmt::format("the request head is malformed: {}", ec.message())};
    if (n == 0) return std::nullopt;
  }
  return classify_request(parser.get());
}

}  // namespace errand::broker
