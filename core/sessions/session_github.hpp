#pragma once

// A session's GitHub identity: the files and variables its sandbox is given at launch, its App
// token kept fresh while it runs (and revoked when it ends), and the pull request !pr opens from
// the branch the agent pushed. The session owns one, on its strand; a session without a `github`
// section in the configuration has none.

#include "core/agent/host_process.hpp"
#include "core/github/github_api.hpp"
#include "core/github/github_at_start.hpp"
#include "core/github/installation_token_keeper.hpp"
#include "core/github/sandbox_identity.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace errand::sessions {

class SessionGithub : public std::enable_shared_from_this<SessionGithub> {
 public:
  struct Context {
    boost::asio::any_io_executor strand;  // the session's
    const sdk::Clock& clock;
    std::shared_ptr<spdlog::logger> log;
    std::string session_id;
    std::filesystem::path state_dir;  // where the identity's files are written for the sandbox
    // A token made a secret of the session before anything can print it.
    std::function<void(const std::string& token)> keep_secret;
    // A line for the session's thread (a renewal that failed, a token that expired).
    std::function<void(const std::string& text)> notice;
  };

  // What !pr opened, for the session's transcript and its answer.
  struct PullRequest {
    std::int64_t number = 0;
    std::string url;
    std::string branch;
  };

  static std::shared_ptr<SessionGithub> create(Context context);

  // Writes the identity's files and, with github.app, mints the first token; an error stops
  // the session's start.
  boost::asio::awaitable<sdk::Result<void>> open(const github::GithubIdentity& identity);
  // The variables the sandbox is launched with.
  const agent::EnvironmentList& env() const noexcept { return env_; }
  // Stops renewing, revokes a minted token and takes it off disk; the static token stays valid.
  void close();
  // A refusal when there is no identity or no live token, or GitHub's own.
  boost::asio::awaitable<sdk::Result<PullRequest>> pull_request(
      std::string title, const std::filesystem::path& project_dir);

 private:
  explicit SessionGithub(Context context);

  sdk::Result<void> write_files(const std::vector<github::IdentityFile>& files);
  void took_token(const std::string& token);
  void drop_token();

  Context context_;
  std::optional<github::GithubSettings> settings_;  // none until opened
  agent::EnvironmentList env_;
  std::string token_;  // the static token or the App token now valid; empty: none
  std::shared_ptr<github::GithubApi> api_;
  std::shared_ptr<github::InstallationTokenKeeper> keeper_;  // App tokens only
};

}  // namespace errand::sessions
