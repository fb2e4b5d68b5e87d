#include "plugins/broker/relay/http_replies.hpp"

#include <fmt/format.h>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/status.hpp>

#include "common/ascii_case.hpp"

namespace errand::broker {
namespace http = boost::beast::http;

namespace {

std::string bracketed(std::string_view host) {
  if (host.find(':') != std::string_view::npos) return fmt::format("[{}]", host);
  return std::string(host);
}

bool connection_names(const http::fields& fields, std::string_view name) {
  for (const auto& field : fields) {
    if (field.name() != http::field::connection) continue;
    std::string_view list = field.value();
    while (!list.empty()) {
      const auto comma = list.find(',');
      std::string_view token = list.substr(0, comma);
      while (!token.empty() && (token.front() == ' ' || token.front() == '\t'))
        token.remove_prefix(1);
      while (!token.empty() && (token.back() == ' ' || token.back() == '\t'))
        token.remove_suffix(1);
      if (boost::beast::iequals(token, name)) return true;
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  return false;
}

}  // namespace

std::string render_reply(unsigned status, std::string_view body, bool keep_alive,
                         const HeaderList& extra) {
  std::string text(body);
  if (text.empty() || text.back() != '\n') text.push_back('\n');
  HeaderList fields = extra;
  fields.emplace_back("Content-Type", "text/plain; charset=utf-8");
  fields.emplace_back("Content-Length", std::to_string(text.size()));
  fields.emplace_back("Connection", keep_alive ? "keep-alive" : "close");
  return render_response_head(status, http::obsolete_reason(static_cast<http::status>(status)),
                              fields) +
         text;
}

bool is_hop_by_hop(std::string_view name, const http::fields& fields) {
  static constexpr std::string_view kHopByHop[] = {"connection", "keep-alive",        "te",
                                                   "trailer",    "transfer-encoding", "upgrade"};
  for (const auto h : kHopByHop) {
    if (boost::beast::iequals(name, h)) return true;
  }
  if (common::istarts_with(name, "proxy-")) return true;
  return connection_names(fields, name);
}

bool is_override_header(std::string_view name) {
  static constexpr std::string_view kOverrides[] = {"x-http-method-override", "x-http-method",
                                                    "x-method-override",      "x-original-url",
                                                    "x-rewrite-url",          "x-original-method"};
  for (const auto h : kOverrides) {
    if (boost::beast::iequals(name, h)) return true;
  }
  return false;
}

std::string authority_text(std::string_view host, std::uint16_t port) {
  return fmt::format("{}:{}", bracketed(host), port);
}

std::string host_field(std::string_view host, std::uint16_t port, std::uint16_t scheme_port) {
  return port == scheme_port ? bracketed(host) : authority_text(host, port);
}

std::string render_request_head(std::string_view method, std::string_view target,
                                std::string_view host_header, const HeaderList& fields) {
  std::string out;
  out.reserve(256 + fields.size() * 48);
  out += fmt::format("{} {} HTTP/1.1\r\nHost: {}\r\n", method, target, host_header);
  for (const auto& [name, value] : fields) out += fmt::format("{}: {}\r\n", name, value);
  out += "\r\n";
  return out;
}

std::string render_response_head(unsigned status, std::string_view reason,
                                 const HeaderList& fields) {
  std::string out;
  out.reserve(128 + fields.size() * 48);
  out += fmt::format("HTTP/1.1 {} {}\r\n", status, reason);
  for (const auto& [name, value] : fields) out += fmt::format("{}: {}\r\n", name, value);
  out += "\r\n";
  return out;
}

}  // namespace errand::broker
