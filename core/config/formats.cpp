#include "core/config/formats.hpp"

#include <arpa/inet.h>

#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <cctype>
#include <cmath>
#include <errand/sdk/config_values.hpp>

#include "core/config/host_share.hpp"

namespace errand::config {

namespace json = boost::json;

namespace {

std::string quoted(std::string_view text) {
  return json::serialize(json::value(text));
}

std::optional<std::string> check_absolute_path(std::string_view path) {
  if (path.empty()) return "must be an absolute path, not an empty string";
  if (path.find('\0') != std::string_view::npos) return "must be a path without NUL characters";
  if (path.front() != '/')
    return "must be an absolute path; " + quoted(path) +
           " is relative (write it from the root, starting with /)";
  return std::nullopt;
}

std::optional<std::string> check_size(const json::value& value) {
  // 1073741824.0 is a whole number of bytes to JSON Schema; parse_size wants it as an integer.
  const bool whole_double = value.is_double() &&
                            std::floor(value.as_double()) == value.as_double() &&
                            value.as_double() >= 0 && value.as_double() < 1.8e19;
  const auto bytes = sdk::parse_size(
      whole_double ? json::value(static_cast<std::uint64_t>(value.as_double())) : value);
  if (!bytes) return "is not a size: " + bytes.error().message;
  if (*bytes == 0) return "must be more than 0 bytes";
  return std::nullopt;
}

bool is_host_name(std::string_view name) {
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  if (name.empty() || name.size() > 253) return false;
  while (true) {
    const auto dot = name.find('.');
    const auto label = name.substr(0, dot);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
      return false;
    for (const char c : label)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
    if (dot == std::string_view::npos) return true;
    name.remove_prefix(dot + 1);
  }
}

bool is_ipv6_literal(std::string_view text) {
  if (text.size() > 2 && text.front() == '[' && text.back() == ']')
    text = text.substr(1, text.size() - 2);
  const std::string address(text);
  in6_addr parsed{};
  return inet_pton(AF_INET6, address.c_str(), &parsed) == 1;
}

std::optional<std::string> check_env_name(std::string_view name) {
  bool valid = !name.empty() && !std::isdigit(static_cast<unsigned char>(name.front()));
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') valid = false;
  if (valid) return std::nullopt;
  return "must be an environment variable name (letters, digits and _, not starting with a "
         "digit); " +
         quoted(name) + " is not one";
}

std::optional<std::string> check_http_url(std::string_view text) {
  const auto url = boost::urls::parse_absolute_uri(text);
  if (!url || (url->scheme() != "http" && url->scheme() != "https") || !url->has_authority() ||
      url->host().empty())
    return "must be an http or https URL such as \"https://api.example.com/v1\"; " + quoted(text) +
           " is not one";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_host_pattern(std::string_view pattern) {
  const std::string shown = quoted(pattern);
  if (pattern == "*") return std::nullopt;
  if (pattern.find("://") != std::string_view::npos)
    return "names " + shown + "; name the host alone, without a scheme, as in \"example.com\"";
  if (pattern.find('/') != std::string_view::npos)
    return "names " + shown + "; name the host alone, without a path: a tunnel is opaque, so " +
           "only hosts can be allowed";
  if (is_ipv6_literal(pattern)) return std::nullopt;
  if (pattern.find(':') != std::string_view::npos)
    return "names " + shown + "; name the host without a port (ports are sandbox.egressPorts)";
  std::string_view name = pattern;
  if (name.starts_with("*.")) name.remove_prefix(2);
  if (name.find('*') != std::string_view::npos)
    return "names " + shown + "; \"*\" stands alone or as the whole first label, as in " +
           "\"*.example.com\"";
  if (!is_host_name(name))
    return "names " + shown + ", which is not a host name (labels of letters, digits and -, " +
           "separated by dots)";
  return std::nullopt;
}

std::optional<std::string> check_format(std::string_view format, const json::value& value) {
  if (format == "size") return check_size(value);
  // A share is a string ending in %; any other value is held to the key's own form.
  const bool share = value.is_string() && looks_like_share(value.as_string());
  if (format == "size-or-share" || format == "number-or-share") {
    if (share) {
      auto fraction = parse_host_share(value.as_string());
      return fraction ? std::nullopt : std::optional<std::string>(fraction.error().message);
    }
    if (format == "size-or-share") return check_size(value);
    if (value.is_string())
      return "must be a number of CPUs or a share of the host such as \"80%\", not " +
             quoted(value.as_string());
    return std::nullopt;
  }
  if (!value.is_string()) return std::nullopt;
  const std::string_view text = value.as_string();
  if (format == "absolute-path") return check_absolute_path(text);
  if (format == "hostname-pattern") return check_host_pattern(text);
  if (format == "env-name") return check_env_name(text);
  if (format == "uri") return check_http_url(text);
  if (format == "url-path" && !text.starts_with('/'))
    return "must be a path starting with /, as in \"/v1/messages\"; " + quoted(text) +
           " is not one";
  return std::nullopt;
}

}  // namespace errand::config
