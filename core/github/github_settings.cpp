#include "core/github/github_settings.hpp"

#include "common/url_port.hpp"
#include "core/config/string_settings.hpp"

#include <fmt/format.h>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <errand/sdk/config_values.hpp>

namespace errand::github {

namespace json = boost::json;

namespace {

// An id the file may give as a number or a string, kept as its decimal text.
std::string decimal_id(const json::object& app, std::string_view key) {
  const auto* value = app.if_contains(key);
  if (value == nullptr) return {};
  if (value->is_string()) return std::string(value->as_string());
  if (value->is_int64()) return std::to_string(value->as_int64());
  if (value->is_uint64()) return std::to_string(value->as_uint64());
  return json::serialize(*value);
}

AppSettings app_settings_from(const json::object& app) {
  AppSettings settings;
  settings.app_id = decimal_id(app, "appId");
  settings.installation_id = decimal_id(app, "installationId");
  settings.private_key_path = config::string_member(app, "privateKeyPath");
  if (const auto* names = app.if_contains("repositories"); names != nullptr && names->is_array())
    for (const auto& name : names->as_array())
      if (name.is_string()) settings.repositories.emplace_back(name.as_string());
  if (const auto* permissions = app.if_contains("permissions");
      permissions != nullptr && permissions->is_object())
    settings.permissions = permissions->as_object();
  return settings;
}

}  // namespace

sdk::Result<ApiOrigin> api_origin_of(std::string_view api_base) {
  const auto url = boost::urls::parse_uri(api_base);
  if (!url || !url->has_authority() || url->encoded_host().empty())
    return sdk::refusal(fmt::format("is \"{}\", which is not a URL with a host", api_base));
  if (url->scheme() != "https")
    return sdk::refusal(fmt::format(
        "is \"{}\": GitHub is reached over https only, since every call carries a token; "
        "write https://",
        api_base));
  if (url->has_userinfo())
    return sdk::refusal("carries user information before the host, which is never sent; remove it");
  if (url->has_query() || url->has_fragment())
    return sdk::refusal(
        fmt::format("is \"{}\": a query or a fragment cannot be part of the API's "
                    "address; remove it",
                    api_base));
  if (url->has_port() && !common::read_port(url->port()))
    return sdk::refusal(fmt::format("has the port \"{}\", which is not a number from 1 to 65535",
                                    std::string(url->port())));
  const std::string path(url->encoded_path());
  if (!path.empty() && path.front() != '/')
    return sdk::refusal(fmt::format("is \"{}\", whose host or port is malformed", api_base));
  ApiOrigin origin;
  origin.host = url->host_address();
  origin.port = url->has_port() ? std::string(url->port()) : "443";
  origin.host_is_address = url->host_type() == boost::urls::host_type::ipv4 ||
                           url->host_type() == boost::urls::host_type::ipv6;
  origin.path_prefix = path;
  while (!origin.path_prefix.empty() && origin.path_prefix.back() == '/')
    origin.path_prefix.pop_back();
  return origin;
}

std::string git_host_for(std::string_view api_base) {
  const auto url = boost::urls::parse_uri(api_base);
  if (!url) return {};
  std::string host = url->host_address();
  return host == "api.github.com" ? "github.com" : host;
}

std::optional<GithubSettings> github_settings_from_config(const json::object& config) {
  const auto* section = sdk::find_setting(config, "github");
  if (section == nullptr || !section->is_object()) return std::nullopt;
  const auto& github = section->as_object();
  GithubSettings settings;
  settings.token = config::string_member(github, "token");
  settings.user_name = config::string_member(github, "userName");
  settings.user_email = config::string_member(github, "userEmail");
  settings.api_base = config::string_member(github, "apiBase", "https://api.github.com");
  while (settings.api_base.ends_with('/')) settings.api_base.pop_back();
  settings.ca_file = config::string_member(github, "caFile");
  if (const auto* app = github.if_contains("app"); app != nullptr && app->is_object())
    settings.app = app_settings_from(app->as_object());
  settings.git_host = git_host_for(settings.api_base);
  return settings;
}

}  // namespace errand::github
