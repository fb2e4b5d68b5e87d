#include "core/github/github_at_start.hpp"

#include "common/tls_client.hpp"

namespace errand::github {

sdk::Result<std::optional<GithubIdentity>> check_github_at_start(
    const boost::json::object& config) {
  auto settings = github_settings_from_config(config);
  if (!settings) return std::optional<GithubIdentity>();
  GithubIdentity identity{*settings, nullptr};
  if (!settings->ca_file.empty()) {
    if (auto trusted = common::make_client_tls_context({settings->ca_file, "github.caFile", {}});
        !trusted)
      return sdk::make_error("github.caFile: " + trusted.error().message,
                             sdk::Error::Kind::refused);
  }
  if (settings->app) {
    auto key = load_app_key(settings->app->private_key_path);
    if (!key)
      return sdk::make_error("github.app.privateKeyPath: " + key.error().message,
                             sdk::Error::Kind::refused);
    identity.app_key = std::make_shared<const AppKey>(std::move(*key));
  }
  return std::optional<GithubIdentity>(std::move(identity));
}

}  // namespace errand::github
