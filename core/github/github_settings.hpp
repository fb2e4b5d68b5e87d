#pragma once

// The `github` configuration section, typed: the identity a session is given (a static token or
// a GitHub App), the commit identity, and where GitHub's API and git host are.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::github {

struct AppSettings {
  std::string app_id, installation_id;  // decimal, whether the file quoted them or not
  std::filesystem::path private_key_path;
  std::vector<std::string> repositories;  // empty: every repository of the installation
  boost::json::object permissions;        // empty: the installation's own
};

struct GithubSettings {
  std::string token;  // the static token; empty when app is set
  std::string user_name, user_email;
  std::string api_base;  // as written, without a trailing slash
  std::string ca_file;   // empty: the system's store
  std::optional<AppSettings> app;
  std::string git_host;  // git_host_for(api_base)
};

// Where apiBase points, split as a connection needs it.
struct ApiOrigin {
  std::string host;  // a name, or an address (IPv6 without brackets)
  std::string port;
  bool host_is_address = false;
  std::string path_prefix;  // "" for api.github.com, "/api/v3" for a GitHub Enterprise Server
};

// apiBase read, or why it cannot be used: it must be https, name a host, and carry no user
// information, query or fragment. The reason is the end of a sentence that starts with the key.
sdk::Result<ApiOrigin> api_origin_of(std::string_view api_base);

// The host git pushes to with the token: github.com for api.github.com, else apiBase's host.
std::string git_host_for(std::string_view api_base);

// Nothing when the configuration (validated, defaults filled) has no `github` section.
std::optional<GithubSettings> github_settings_from_config(const boost::json::object& config);

}  // namespace errand::github
