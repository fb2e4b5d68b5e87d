// A session's GitHub identity: what its sandbox is given at launch, its App token kept fresh
// while it runs, and the pull request !pr opens from the branch the agent pushed.

#include "core/agent/state_files.hpp"
#include "core/github/sandbox_identity.hpp"
#include "core/sessions/pushed_branch.hpp"
#include "core/sessions/session.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

sdk::Result<void> Session::write_github_files(const std::vector<github::IdentityFile>& files) {
  for (const auto& file : files)
    if (auto written =
            agent::write_beneath(paths_.state, file.relative_path, file.content, file.mode);
        !written)
      return sdk::make_error("the GitHub identity's " + file.relative_path.string() +
                             " could not be written: " + written.error().message);
  return {};
}

asio::awaitable<sdk::Result<void>> Session::open_github() {
  const auto identity_at_start = services_->github;
  if (!identity_at_start) co_return sdk::Result<void>{};
  github_ = identity_at_start->settings;
  auto identity = github::sandbox_identity(*github_);
  if (auto written = write_github_files(identity.files); !written) co_return written.error();
  github_env_ = std::move(identity.env);
  if (!github_->app) {
    // The daemon's own token: a configured secret, so every door already scrubs it.
    github_token_ = github_->token;
    co_return sdk::Result<void>{};
  }
  auto api = std::make_shared<github::GithubApi>(strand_, *github_);
  const auto app_key = identity_at_start->app_key;
  const github::AppSettings app = *github_->app;
  // The mint owns what it uses, so a renewal in flight when the session ends still has them.
  github::InstallationTokenKeeper::Mint mint = [api, app_key, app](auto now) {
    return api->create_installation_token(*app_key, app, now);
  };
  github_api_ = api;
  std::weak_ptr<Session> weak = weak_from_this();
  github::TokenKeeperCallbacks callbacks;
  callbacks.on_token = [weak](const github::InstallationToken& token) {
    if (auto self = weak.lock()) self->took_github_token(token.token);
  };
  callbacks.on_failure = [weak](const std::string& why) {
    auto self = weak.lock();
    if (!self) return;
    self->log_->warn("session {}: renewing the GitHub App token failed: {}", self->id(), why);
    if (self->renderer_)
      self->renderer_->notice("renewing this session's GitHub token failed (" + why +
                              "); errand keeps trying until the current one expires.");
  };
  callbacks.on_expired = [weak] {
    auto self = weak.lock();
    if (!self) return;
    self->log_->warn("session {}: its GitHub App token expired with no renewal", self->id());
    self->drop_github_token();
    if (self->renderer_)
      self->renderer_->notice(
          "this session's GitHub token expired and could not be renewed, so the agent has no "
          "GitHub credential now; errand keeps trying.");
  };
  github_keeper_ = std::make_shared<github::InstallationTokenKeeper>(
      strand_, services_->clock, std::move(mint), std::move(callbacks));
  auto first = co_await github_keeper_->start();
  if (!first) {
    github_keeper_.reset();
    co_return sdk::make_error("GitHub gave no installation token for github.app: " +
                              first.error().message);
  }
  co_return sdk::Result<void>{};
}

void Session::took_github_token(const std::string& token) {
  // A secret before anything can print it: the agent reads the file the moment it is written.
  secrets_.add(token);
  github_token_ = token;
  if (auto written = write_github_files(github::app_token_files(*github_, token)); !written) {
    log_->error("session {}: {}", id(), written.error().message);
    if (renderer_) renderer_->notice(written.error().message + "; the agent keeps its old token.");
  }
}

void Session::drop_github_token() {
  github_token_.clear();
  if (github_ && github_->app)
    if (auto written = write_github_files(github::app_token_files(*github_, "")); !written)
      log_->error("session {}: {}", id(), written.error().message);
}

namespace {

// Owns what it uses, since the session may be gone before GitHub answers.
asio::awaitable<void> revoke_app_token(std::shared_ptr<github::GithubApi> api, std::string token,
                                       std::shared_ptr<spdlog::logger> log,
                                       std::string session_id) {
  auto revoked = co_await api->revoke_installation_token(std::move(token));
  if (revoked)
    log->info("session {}: its GitHub App token was revoked", session_id);
  else
    log->warn(
        "session {}: its GitHub App token could not be revoked ({}); GitHub honours it "
        "until it expires",
        session_id, revoked.error().message);
}

}  // namespace

void Session::close_github() {
  if (github_keeper_) github_keeper_->stop();
  github_keeper_.reset();
  // A minted token is revoked, so it stops working now rather than up to an hour later, and
  // is not left on disk past its session; the static one is the operator's and stays valid.
  if (github_ && github_->app && github_api_ && !github_token_.empty())
    asio::co_spawn(strand_, revoke_app_token(github_api_, github_token_, log_, id()),
                   asio::detached);
  drop_github_token();
}

void Session::open_pull_request(std::string title, ReplyTo to) {
  spawn(answer_pull_request(shared_from_this(), std::move(title), std::move(to)));
}

// The arguments are the coroutine's own: a lambda's captures would not outlive its first
// suspension.
asio::awaitable<void> Session::answer_pull_request(std::shared_ptr<Session> self, std::string title,
                                                   ReplyTo to) {
  auto opened = co_await pull_request(std::move(title));
  reply(to, opened ? *opened : "!pr was refused: " + opened.error().message);
  (void)self;
}

asio::awaitable<sdk::Result<std::string>> Session::pull_request(std::string title) {
  if (!github_)
    co_return sdk::make_error(
        "no GitHub identity is configured (add a `github` block to the configuration)",
        sdk::Error::Kind::refused);
  if (github_token_.empty())
    co_return sdk::make_error(
        "this session holds no live GitHub token (its renewal failed; see the thread)",
        sdk::Error::Kind::refused);
  auto branch = read_project_branch(plan_.project_dir);
  if (!branch) co_return branch.error();
  auto repository = github::repository_of_remote(branch->origin_url, github_->git_host);
  if (!repository) co_return repository.error();
  if (!github_api_) github_api_ = std::make_shared<github::GithubApi>(strand_, *github_);
  auto api = github_api_;
  const std::string token = github_token_;
  const github::RepositoryRef repo = *repository;
  const std::string head = branch->branch;
  auto opened = co_await api->open_pull_request(token, repo, head, title);
  if (!opened) co_return opened.error();
  record(boost::json::object{{"type", "pull_request"},
                             {"number", opened->number},
                             {"url", opened->html_url},
                             {"branch", head}});
  co_return fmt::format("opened pull request #{} from `{}`: {}", opened->number, head,
                        opened->html_url);
}

}  // namespace errand::sessions
