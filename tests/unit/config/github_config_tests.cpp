// The `github` section: a token or an App, never both and never neither, an https apiBase, ids
// kept as decimal text, and the token a secret like the chat token.

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/config/secrets.hpp"
#include "core/github/github_settings.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;

namespace {

json::object with_github(std::string_view github) {
  auto config = minimal_config();
  config["github"] = json::parse(github);
  return config;
}

constexpr std::string_view kApp = R"({"userName": "errand-bot", "userEmail": "bot@example.com",
    "app": {"appId": 12345, "installationId": "67890", "privateKeyPath": "/etc/errand/app.pem",
            "repositories": ["repo-a"], "permissions": {"contents": "write"}}})";

}  // namespace

TEST_CASE("a static token is read with the default API and git host",
          "[config][github][key:github.token][key:github.apiBase]") {
  const auto loaded =
      load_core(with_github(R"({"token": "ghp_0123456789", "userName": "b", "userEmail": "b@x"})"));
  REQUIRE(loaded.has_value());
  const auto settings = errand::github::github_settings_from_config(loaded->effective);
  REQUIRE(settings.has_value());
  CHECK(settings->token == "ghp_0123456789");
  CHECK(settings->api_base == "https://api.github.com");
  CHECK(settings->git_host == "github.com");
  CHECK_FALSE(settings->app.has_value());
  // A secret: collected for scrubbing, blanked when the configuration is logged.
  const auto secrets = collect_secrets(loaded->effective, core_schema());
  CHECK(std::find(secrets.begin(), secrets.end(), "ghp_0123456789") != secrets.end());
  CHECK(blank_secrets(loaded->effective, core_schema()).at("github").at("token") == "[redacted]");
}

TEST_CASE("an App's ids are kept as decimal text whether quoted or not",
          "[config][github][key:github.app.appId][key:github.app.installationId]") {
  const auto loaded = load_core(with_github(kApp));
  REQUIRE(loaded.has_value());
  const auto settings = errand::github::github_settings_from_config(loaded->effective);
  REQUIRE(settings.has_value());
  REQUIRE(settings->app.has_value());
  CHECK(settings->app->app_id == "12345");
  CHECK(settings->app->installation_id == "67890");
  CHECK(settings->app->private_key_path == "/etc/errand/app.pem");
  CHECK(settings->app->repositories == std::vector<std::string>{"repo-a"});
  CHECK(settings->app->permissions.at("contents") == "write");
  CHECK(settings->token.empty());
}

TEST_CASE("a GitHub token shorter than 8 bytes is refused at load", "[config][github]") {
  const auto problem =
      only_problem(with_github(R"({"token": "ghp_123", "userName": "b", "userEmail": "b@x"})"));
  CHECK(problem.path == "github.token");
  CHECK_THAT(problem.message, ContainsSubstring("at least 8 bytes long, not 7"));
  CHECK_THAT(problem.message, ContainsSubstring("could not be scrubbed"));
}

TEST_CASE("github needs exactly one of token and app", "[config][github]") {
  const auto neither = only_problem(with_github(R"({"userName": "b", "userEmail": "b@x"})"));
  CHECK(neither.path == "github");
  CHECK_THAT(neither.message, ContainsSubstring("no identity"));
  CHECK_THAT(neither.message, ContainsSubstring("add `token`"));

  auto both = with_github(kApp);
  both["github"].as_object()["token"] = "ghp_0123456789";
  const auto twice = only_problem(both);
  CHECK(twice.path == "github");
  CHECK_THAT(twice.message, ContainsSubstring("both `token` and `app`"));
}

TEST_CASE("apiBase must be an https origin, optionally with a path prefix",
          "[config][github][key:github.apiBase]") {
  const std::vector<std::pair<std::string, std::string>> refused{
      {"http://api.github.com", "over https only"},
      {"https://user:pw@ghe.example.com/api/v3", "user information"},
      {"https://ghe.example.com/api/v3?x=1", "query or a fragment"},
      {"https://ghe.example.com:99999", "1 to 65535"},
      {"ftp://ghe.example.com", "http or https URL"},
  };
  for (const auto& [base, words] : refused) {
    INFO(base);
    auto config =
        with_github(R"({"token": "ghp_0123456789", "userName": "b", "userEmail": "b@x"})");
    config["github"].as_object()["apiBase"] = base;
    const auto problem = only_problem(config);
    CHECK(problem.path == "github.apiBase");
    CHECK_THAT(problem.message, ContainsSubstring(words));
  }
  auto enterprise = with_github(R"({"token": "ghp_0123456789", "userName": "b", "userEmail": "b@x",
                      "apiBase": "https://ghe.example.com:8443/api/v3/"})");
  const auto loaded = load_core(enterprise);
  REQUIRE(loaded.has_value());
  const auto settings = errand::github::github_settings_from_config(loaded->effective);
  REQUIRE(settings.has_value());
  CHECK(settings->api_base == "https://ghe.example.com:8443/api/v3");
  CHECK(settings->git_host == "ghe.example.com");
  const auto origin = errand::github::api_origin_of(settings->api_base);
  REQUIRE(origin.has_value());
  CHECK(origin->host == "ghe.example.com");
  CHECK(origin->port == "8443");
  CHECK(origin->path_prefix == "/api/v3");
}

TEST_CASE("an App's key path must be absolute and its ids numbers", "[config][github]") {
  auto relative = with_github(kApp);
  relative["github"].as_object()["app"].as_object()["privateKeyPath"] = "keys/app.pem";
  CHECK(only_problem(relative).path == "github.app.privateKeyPath");

  auto named = with_github(kApp);
  named["github"].as_object()["app"].as_object()["appId"] = "my-app";
  const auto problem = only_problem(named);
  CHECK(problem.path == "github.app.appId");
  CHECK_THAT(problem.message, ContainsSubstring("App ID"));

  auto level = with_github(kApp);
  level["github"].as_object()["app"].as_object()["permissions"] =
      json::object{{"contents", "everything"}};
  CHECK(only_problem(level).path == "github.app.permissions.contents");

  auto missing = with_github(kApp);
  missing["github"].as_object()["app"].as_object().erase("installationId");
  CHECK(only_problem(missing).path == "github.app.installationId");
}
