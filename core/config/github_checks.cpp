#include "core/config/github_checks.hpp"

#include <errand/sdk/config_values.hpp>

#include "core/github/github_settings.hpp"

namespace errand::config {

namespace json = boost::json;

void check_github_section(const json::object& config, std::vector<Problem>& problems) {
  const auto* section = sdk::find_setting(config, "github");
  if (section == nullptr || !section->is_object()) return;
  const auto& github = section->as_object();
  const bool token = github.contains("token");
  const bool app = github.contains("app");
  if (!token && !app)
    problems.push_back({"github",
                        "`github` gives sessions no identity: add `token` (a personal access "
                        "token) or `app` (a GitHub App's appId, installationId and "
                        "privateKeyPath)"});
  if (token && app)
    problems.push_back({"github",
                        "`github` has both `token` and `app`, and a session gets one identity; "
                        "remove `token` to sign in as the App, or `app` to use the token"});
  if (const auto* base = github.if_contains("apiBase"); base != nullptr && base->is_string()) {
    // A URL that is not http(s) at all is the format check's to refuse.
    if (auto origin = github::api_origin_of(base->as_string());
        !origin && base->as_string().starts_with("http"))
      problems.push_back({"github.apiBase", "`github.apiBase` " + origin.error().message});
  }
}

}  // namespace errand::config
