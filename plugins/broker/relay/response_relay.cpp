#include "plugins/broker/relay/response_relay.hpp"

#include <fmt/format.h>
#include <boost/beast/core/string.hpp>

namespace errand::broker {
namespace http = boost::beast::http;

std::string chunk_header(std::size_t size) {
  return fmt::format("{:x}\r\n", size);
}

Framing finish_upstream_fields(const http::request_parser<http::buffer_body>& parser,
                               HeaderList& fields, bool keep_upstream) {
  Framing framing = Framing::none;
  if (const auto length = parser.content_length()) {
    if (*length > 0) framing = Framing::length;
    fields.emplace_back("Content-Length", std::to_string(*length));
  } else if (parser.chunked()) {
    framing = Framing::chunked;
    fields.emplace_back("Transfer-Encoding", "chunked");
  }
  if (!keep_upstream) fields.emplace_back("Connection", "close");
  return framing;
}

bool answer_has_body(unsigned status, bool head_request, std::optional<std::uint64_t> length) {
  if (head_request) return false;
  if ((status >= 100 && status < 200) || status == 204 || status == 304) return false;
  return !(length && *length == 0);
}

bool is_encoded(const http::response_header<>& head) {
  for (const auto& field : head) {
    if (field.name() != http::field::content_encoding) continue;
    std::string_view value = field.value();
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    if (!value.empty() && !boost::beast::iequals(value, "identity")) return true;
  }
  return false;
}

ClientHead build_client_head(const http::response_header<>& head, const RelayPolicy& policy,
                             bool has_body, std::optional<std::uint64_t> content_length) {
  ClientHead out;
  const bool scrubbing = !policy.key.empty();
  if (!has_body) {
    out.framing = Framing::none;
  } else if (!scrubbing && content_length) {
    out.framing = Framing::length;
  } else if (policy.client_http11) {
    // A scrubbed body can change length, so it is re-framed rather than trusted.
    out.framing = Framing::chunked;
  } else {
    out.framing = Framing::until_close;
  }
  out.keep_alive = policy.client_keep_alive && out.framing != Framing::until_close;
  HeaderList fields;
  for (const auto& field : head) {
    const std::string_view name = field.name_string();
    if (is_hop_by_hop(name, head)) continue;
    if (field.name() == http::field::content_length && has_body && out.framing != Framing::length)
      continue;
    std::string value(field.value());
    if (scrubbing) value = scrub_whole(value, policy.key);
    fields.emplace_back(std::string(name), std::move(value));
  }
  if (out.framing == Framing::chunked) fields.emplace_back("Transfer-Encoding", "chunked");
  fields.emplace_back("Connection", out.keep_alive ? "keep-alive" : "close");
  std::string reason(head.reason());
  if (scrubbing) reason = scrub_whole(reason, policy.key);
  if (reason.empty()) reason = std::string(http::obsolete_reason(head.result()));
  out.text = render_response_head(head.result_int(), reason, fields);
  return out;
}

}  // namespace errand::broker
