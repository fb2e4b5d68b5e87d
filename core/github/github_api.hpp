#pragma once

// The daemon's calls to GitHub's REST API, made on the host: never from a sandbox. One HTTPS
// exchange per call (common::exchange_once) to github.apiBase, its certificate checked against
// the system's store or github.caFile, no redirect followed, answers of 1 MiB at most, each call
// under a 30 s deadline. A failure is a sentence naming the call, GitHub's status and the
// "message" of its answer.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/github/app_private_key.hpp"
#include "core/github/github_settings.hpp"

namespace errand::github {

struct InstallationToken {
  std::string token;
  std::chrono::system_clock::time_point expires_at;
};

struct RepositoryRef {
  std::string owner, name;
};

struct PullRequest {
  std::int64_t number = 0;
  std::string html_url;
};

// owner/repo of a git remote on the git host: https://host[:port]/owner/repo(.git),
// http://<loopback>:port/owner/repo.git, git@host:owner/repo(.git), ssh://git@host/owner/repo.
// A remote on another host is refused, since the session's token is for the git host alone.
sdk::Result<RepositoryRef> repository_of_remote(std::string_view remote, std::string_view git_host);

// "2026-01-02T03:04:05Z", as GitHub writes expires_at.
sdk::Result<std::chrono::system_clock::time_point> parse_utc_timestamp(std::string_view text);

class GithubApi {
 public:
  GithubApi(boost::asio::any_io_executor executor, const GithubSettings& settings);

  // POST /app/installations/{id}/access_tokens, signed with a JWT made at `now`; narrowed to
  // app.repositories and app.permissions when they are set. key must outlive the call.
  boost::asio::awaitable<sdk::Result<InstallationToken>> create_installation_token(
      const AppKey& key, AppSettings app, std::chrono::system_clock::time_point now);

  // DELETE /installation/token, authorised by the token itself: GitHub stops honouring it at
  // once instead of at its expiry (an hour after it was minted). 204 is success.
  boost::asio::awaitable<sdk::Result<void>> revoke_installation_token(std::string token);

  // For !pr: the repository's default branch (GET /repos/{o}/{r}), the branch on GitHub (GET
  // .../branches/{b}; 404: "push it first"), then POST .../pulls {title, head, base}.
  // The arguments are taken by value, since the call outlives the caller's statement.
  boost::asio::awaitable<sdk::Result<PullRequest>> open_pull_request(std::string token,
                                                                     RepositoryRef repo,
                                                                     std::string branch,
                                                                     std::string title);

 private:
  struct Answer {
    unsigned status = 0;
    boost::json::value body;
  };
  // One call; `what` names it in every sentence ("mint an installation token"). Any status is
  // returned but a redirect, which is refused naming its Location.
  boost::asio::awaitable<sdk::Result<Answer>> call(std::string_view what,
                                                   boost::beast::http::verb method,
                                                   std::string path, std::string authorization,
                                                   std::optional<boost::json::value> body);

  boost::asio::any_io_executor executor_;
  sdk::Result<ApiOrigin> origin_;
  std::string ca_file_;
};

}  // namespace errand::github
