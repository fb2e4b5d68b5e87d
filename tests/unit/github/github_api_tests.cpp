// The API client against a TLS server on loopback answering in GitHub's shapes: what it sends,
// and its refusals of a redirect, an oversized answer, a certificate it must not trust, and
// GitHub's own refusals, each naming the call, the status and GitHub's message.

#include "core/github/github_api.hpp"
#include "tests/fakes/github/fake_github.hpp"
#include "tests/fakes/upstream/fake_upstream.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/github/test_keys.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::github;
using namespace errand::github::testing;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::fakes::FakeUpstream;
using errand::fakes::UpstreamReply;
using errand::fakes::UpstreamRequest;
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

UpstreamReply json_reply(unsigned status, std::string body) {
  UpstreamReply reply;
  reply.status = status;
  reply.headers = {{"Content-Type", "application/json; charset=utf-8"}};
  reply.content_length = body.size();
  reply.pieces = {std::move(body)};
  return reply;
}

// A TLS server on 127.0.0.1 with a certificate of a CA made for the test, and what the client
// needs to reach it: the settings with caFile naming that CA, an App and its key.
struct Scene {
  errand::test::TempDir dir;
  errand::fakes::TestCa ca = errand::fakes::make_test_ca(dir.path());
  FakeUpstream server;
  GithubSettings settings;
  std::optional<AppKey> key;

  explicit Scene(errand::fakes::UpstreamHandler handler)
      : server(std::move(handler), FakeUpstream::Tls{ca.server_cert, ca.server_key}) {
    settings.api_base = server.base_url() + "/api/v3";
    settings.ca_file = ca.ca_cert.string();
    settings.user_name = "errand-bot";
    settings.user_email = "bot@example.com";
    settings.git_host = "127.0.0.1";
    settings.app = AppSettings{
        "12345", "67890", dir / "app.pem", {"repo-a"}, json::object{{"contents", "write"}}};
    write_with_mode(dir / "app.pem", errand::fakes::make_test_app_key().private_key_pem, 0600);
    auto loaded = load_app_key(dir / "app.pem");
    REQUIRE(loaded.has_value());
    key.emplace(std::move(*loaded));
  }

  template <class Call>
  auto run(Call call) {
    asio::io_context io;
    GithubApi api(io.get_executor(), settings);
    auto answer = asio::co_spawn(io, call(api), asio::use_future);
    io.run();
    return answer.get();
  }

  errand::sdk::Result<InstallationToken> mint() {
    return run([&](GithubApi& api) {
      return api.create_installation_token(*key, *settings.app, std::chrono::system_clock::now());
    });
  }
};

}  // namespace

TEST_CASE("an installation token is asked for with the App's JWT, narrowed as configured",
          "[github][api][key:github.app.repositories][key:github.app.permissions.<name>]"
          "[key:github.caFile]") {
  Scene scene([](const UpstreamRequest&) {
    return json_reply(201, R"({"token": "ghs_minted0123456789",
        "expires_at": "2026-01-02T03:04:05Z", "permissions": {"contents": "write"},
        "repository_selection": "selected"})");
  });
  const auto minted = scene.mint();
  REQUIRE(minted.has_value());
  CHECK(minted->token == "ghs_minted0123456789");
  CHECK(minted->expires_at == std::chrono::sys_days{std::chrono::year{2026} / 1 / 2} +
                                  std::chrono::hours(3) + std::chrono::minutes(4) +
                                  std::chrono::seconds(5));
  const auto seen = scene.server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].target == "/api/v3/app/installations/67890/access_tokens");
  CHECK_THAT(seen[0].header("authorization"), StartsWith("Bearer ey"));
  CHECK(seen[0].header("accept") == "application/vnd.github+json");
  CHECK(seen[0].header("x-github-api-version") == "2022-11-28");
  CHECK(seen[0].header("user-agent") == "errand");
  CHECK(json::parse(seen[0].body) ==
        json::parse(R"({"repositories": ["repo-a"], "permissions": {"contents": "write"}})"));
}

TEST_CASE("an installation GitHub refuses is a sentence with its status and message",
          "[github][api]") {
  Scene scene([](const UpstreamRequest&) {
    return json_reply(404, R"({"message": "Not Found",
        "documentation_url": "https://docs.github.com/rest"})");
  });
  const auto minted = scene.mint();
  REQUIRE_FALSE(minted.has_value());
  CHECK(minted.error().message ==
        "GitHub refused to mint an installation token for installation 67890 (404: \"Not "
        "Found\")");
}

TEST_CASE("a redirect is refused naming where it pointed, and not followed", "[github][api]") {
  Scene scene([](const UpstreamRequest&) {
    auto reply = json_reply(301, R"({"message": "Moved Permanently"})");
    reply.headers.emplace_back("Location", "https://elsewhere.example/app");
    return reply;
  });
  const auto minted = scene.mint();
  REQUIRE_FALSE(minted.has_value());
  CHECK_THAT(minted.error().message, ContainsSubstring("redirect (301)"));
  CHECK_THAT(minted.error().message, ContainsSubstring("\"https://elsewhere.example/app\""));
  CHECK_THAT(minted.error().message, ContainsSubstring("does not follow"));
  CHECK(scene.server.requests().size() == 1);
}

TEST_CASE("an answer over 1 MiB is refused", "[github][api]") {
  Scene scene([](const UpstreamRequest&) {
    UpstreamReply reply;
    reply.status = 201;
    reply.generated_bytes = (1 << 20) + 1;
    return reply;
  });
  const auto minted = scene.mint();
  REQUIRE_FALSE(minted.has_value());
  CHECK_THAT(minted.error().message, ContainsSubstring("larger than 1048576 bytes"));
}

TEST_CASE("a certificate not of github.caFile's authority is refused, and nothing is sent",
          "[github][api][key:github.caFile]") {
  Scene scene([](const UpstreamRequest&) { return json_reply(201, "{}"); });
  // Another authority's certificate: the server's does not chain to it.
  errand::test::TempDir other;
  scene.settings.ca_file = errand::fakes::make_test_ca(other.path(), "another CA").ca_cert;
  const auto minted = scene.mint();
  REQUIRE_FALSE(minted.has_value());
  CHECK_THAT(minted.error().message, ContainsSubstring("certificate"));
  CHECK_THAT(minted.error().message, ContainsSubstring("github.caFile"));
  CHECK(scene.server.requests().empty());
}

TEST_CASE("a pull request is opened from a pushed branch into the default branch",
          "[github][api][key:github.apiBase]") {
  Scene scene([](const UpstreamRequest& request) {
    if (request.method == "GET" && request.target == "/api/v3/repos/acme/widgets")
      return json_reply(200, R"({"full_name": "acme/widgets", "default_branch": "trunk"})");
    if (request.method == "GET" &&
        request.target == "/api/v3/repos/acme/widgets/branches/errand/fix-1")
      return json_reply(200, R"({"name": "errand/fix-1"})");
    if (request.method == "POST" && request.target == "/api/v3/repos/acme/widgets/pulls")
      return json_reply(201, R"({"number": 7,
          "html_url": "https://github.com/acme/widgets/pull/7"})");
    return json_reply(404, R"({"message": "Not Found"})");
  });
  const auto pull = scene.run([](GithubApi& api) {
    return api.open_pull_request("ghs_minted0123456789", {"acme", "widgets"}, "errand/fix-1",
                                 "Fix the widget");
  });
  REQUIRE(pull.has_value());
  CHECK(pull->number == 7);
  CHECK(pull->html_url == "https://github.com/acme/widgets/pull/7");
  const auto seen = scene.server.requests();
  REQUIRE(seen.size() == 3);
  for (const auto& request : seen)
    CHECK(request.header("authorization") == "token ghs_minted0123456789");
  CHECK(json::parse(seen[2].body) ==
        json::parse(R"({"title": "Fix the widget", "head": "errand/fix-1", "base": "trunk"})"));
}

TEST_CASE("a branch GitHub does not have is refused with what to do", "[github][api]") {
  Scene scene([](const UpstreamRequest& request) {
    if (request.target == "/api/v3/repos/acme/widgets")
      return json_reply(200, R"({"default_branch": "main"})");
    return json_reply(404, R"({"message": "Branch not found"})");
  });
  const auto pull = scene.run([](GithubApi& api) {
    return api.open_pull_request("ghs_x0123456789", {"acme", "widgets"}, "unpushed", "Title");
  });
  REQUIRE_FALSE(pull.has_value());
  CHECK(pull.error().message ==
        "the branch unpushed is not on GitHub (acme/widgets): push it first");
  CHECK(scene.server.requests().size() == 2);
}

TEST_CASE("an installation token is revoked with DELETE /installation/token, by itself",
          "[github][api]") {
  Scene scene([](const UpstreamRequest& request) {
    if (request.method == "DELETE" && request.target == "/api/v3/installation/token" &&
        request.header("authorization") == "token ghs_live0123456789") {
      errand::fakes::UpstreamReply reply;
      reply.status = 204;
      return reply;
    }
    return json_reply(401, R"({"message": "Bad credentials"})");
  });
  const auto revoked =
      scene.run([](GithubApi& api) { return api.revoke_installation_token("ghs_live0123456789"); });
  CHECK(revoked.has_value());
  const auto refused =
      scene.run([](GithubApi& api) { return api.revoke_installation_token("ghs_gone0123456789"); });
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message ==
        "GitHub refused to revoke an installation token (401: \"Bad credentials\")");
}

TEST_CASE("a branch name that would move along the API path is refused, and nothing is sent",
          "[github][api]") {
  for (const char* branch : {"../../../user", "errand/../../x", "a//b", ".", "x/.", ""}) {
    Scene scene([](const UpstreamRequest& request) {
      if (request.target == "/api/v3/repos/acme/widgets")
        return json_reply(200, R"({"default_branch": "main"})");
      return json_reply(200, R"({"name": "x"})");
    });
    const auto pull = scene.run([branch](GithubApi& api) {
      return api.open_pull_request("ghs_x0123456789", {"acme", "widgets"}, branch, "Title");
    });
    INFO(branch);
    REQUIRE_FALSE(pull.has_value());
    CHECK(pull.error().kind == errand::sdk::Error::Kind::refused);
    // Only the repository was read; no request named the branch.
    for (const auto& request : scene.server.requests())
      CHECK(request.target == "/api/v3/repos/acme/widgets");
  }
  // What a branch may hold is encoded segment by segment, slashes kept.
  Scene scene([](const UpstreamRequest& request) {
    if (request.target == "/api/v3/repos/acme/widgets")
      return json_reply(200, R"({"default_branch": "main"})");
    return json_reply(404, R"({"message": "Branch not found"})");
  });
  const auto unpushed = scene.run([](GithubApi& api) {
    return api.open_pull_request("ghs_x0123456789", {"acme", "widgets"}, "fix/a b?c#d%", "T");
  });
  CHECK_FALSE(unpushed.has_value());
  const auto seen = scene.server.requests();
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].target == "/api/v3/repos/acme/widgets/branches/fix/a%20b%3Fc%23d%25");
}

TEST_CASE("remotes on the git host name their repository; others are refused", "[github]") {
  const auto check = [](std::string_view remote, std::string_view host, std::string owner,
                        std::string name) {
    INFO(remote);
    const auto repo = repository_of_remote(remote, host);
    REQUIRE(repo.has_value());
    CHECK(repo->owner == owner);
    CHECK(repo->name == name);
  };
  check("https://github.com/acme/widgets.git", "github.com", "acme", "widgets");
  check("https://github.com/acme/widgets", "github.com", "acme", "widgets");
  check("git@github.com:acme/widgets.git", "github.com", "acme", "widgets");
  check("http://127.0.0.2:9418/acme/widgets.git", "127.0.0.2", "acme", "widgets");
  check("https://ghe.example.com:8443/acme/widgets/", "ghe.example.com", "acme", "widgets");

  const auto elsewhere = repository_of_remote("https://gitlab.com/acme/widgets.git", "github.com");
  REQUIRE_FALSE(elsewhere.has_value());
  CHECK_THAT(elsewhere.error().message, ContainsSubstring("not on the GitHub host github.com"));
  const auto plain = repository_of_remote("http://github.com/acme/widgets.git", "github.com");
  REQUIRE_FALSE(plain.has_value());
  CHECK_THAT(plain.error().message, ContainsSubstring("unencrypted"));
  CHECK_FALSE(repository_of_remote("https://github.com/acme", "github.com").has_value());
  CHECK_FALSE(repository_of_remote("git@gitlab.com:acme/widgets", "github.com").has_value());
}

TEST_CASE("expires_at is read as UTC, and anything else is refused", "[github]") {
  const auto read = parse_utc_timestamp("2026-01-02T03:04:05Z");
  REQUIRE(read.has_value());
  CHECK(std::chrono::system_clock::to_time_t(*read) == 1767323045);
  for (const auto* bad : {"2026-01-02T03:04:05", "2026-01-02 03:04:05Z", "2026-13-02T03:04:05Z",
                          "2026-01-02T03:04:05+01:00", "tomorrow", ""}) {
    INFO(bad);
    CHECK_FALSE(parse_utc_timestamp(bad).has_value());
  }
}
