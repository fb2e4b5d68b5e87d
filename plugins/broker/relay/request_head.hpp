#pragma once

// Tells apart the three kinds of request that arrive on a session's socket: a CONNECT tunnel,
// an absolute-form plain http:// request (both proxy traffic) and an origin-form request for a
// provider route.

#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace errand::broker {

enum class RequestForm { connect, absolute_http, origin };

struct ClassifiedRequest {
  RequestForm form = RequestForm::origin;
  // CONNECT and absolute-form: the upstream named, normalised, and whether it was written as
  // an IP literal (judged as written, with no lookup).
  std::string host;
  std::uint16_t port = 0;
  bool host_is_literal = false;
  // The target as the upstream is to see it: origin form for absolute-form requests, the
  // target as sent for origin-form ones.
  std::string origin_target;
  // The password of a Proxy-Authorization: Basic header, when one was sent and decodes.
  std::optional<std::string> proxy_password;
};

struct RequestRefusal {
  std::string reason;
};

// Classifies a parsed request head. A refusal is a 400 with its reason.
std::variant<ClassifiedRequest, RequestRefusal> classify_request(
    const boost::beast::http::request_header<>& head);

// Parses raw bytes as one request head (16 KiB at most) and classifies it: what the fuzz
// target and its regression corpus drive. Nothing when the head is incomplete.
std::optional<std::variant<ClassifiedRequest, RequestRefusal>> parse_request_head(
    std::string_view bytes);

inline constexpr std::size_t kRequestHeadLimit = 16 * 1024;

}  // namespace errand::broker
