#include "core/sessions/session_github.hpp"

#include "core/agent/state_files.hpp"
#include "core/sessions/pushed_branch.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

std::shared_ptr<SessionGithub> SessionGithub::create(Context context) {
  return std::shared_ptr<SessionGithub>(new SessionGithub(std::move(context)));
}

SessionGithub::SessionGithub(Context context) : context_(std::move(context)) {}

sdk::Result<void> SessionGithub::write_files(const std::vector<github::IdentityFile>& files) {
  for (const auto& file : files)
    if (auto written =
            agent::write_beneath(context_.state_dir, file.relative_path, file.content, file.mode);
        !written)
      return sdk::make_error("the GitHub identity's " + file.relative_path.string() +
                             " could not be written: " + written.error().message);
  return {};
}

asio::awaitable<sdk::Result<void>> SessionGithub::open(const github::GithubIdentity& identity) {
  settings_ = identity.settings;
  auto files = github::sandbox_identity(*settings_);
  if (auto written = write_files(files.files); !written) co_return written.error();
  env_ = std::move(files.env);
  if (!settings_->app) {
    // The daemon's own token: a configured secret, so every door already scrubs it.
    token_ = settings_->token;
    co_return sdk::Result<void>{};
  }
  auto api = std::make_shared<github::GithubApi>(context_.strand, *settings_);
  const auto app_key = identity.app_key;
  const github::AppSettings app = *settings_->app;
  // The mint owns what it uses, so a renewal in flight when the session ends still has them.
  github::InstallationTokenKeeper::Mint mint = [api, app_key, app](auto now) {
    return api->create_installation_token(*app_key, app, now);
  };
  api_ = api;
  std::weak_ptr<SessionGithub> weak = weak_from_this();
  github::TokenKeeperCallbacks callbacks;
  callbacks.on_token = [weak](const github::InstallationToken& token) {
    if (auto self = weak.lock()) self->took_token(token.token);
  };
  callbacks.on_failure = [weak](const std::string& why) {
    auto self = weak.lock();
    if (!self) return;
    self->context_.log->warn("session {}: renewing the GitHub App token failed: {}",
                             self->context_.session_id, why);
    self->context_.notice("renewing this session's GitHub token failed (" + why +
                          "); errand keeps trying until the current one expires.");
  };
  callbacks.on_expired = [weak] {
    auto self = weak.lock();
    if (!self) return;
    self->context_.log->warn("session {}: its GitHub App token expired with no renewal",
                             self->context_.session_id);
    self->drop_token();
    self->context_.notice(
        "this session's GitHub token expired and could not be renewed, so the agent has no "
        "GitHub credential now; errand keeps trying.");
  };
  keeper_ = std::make_shared<github::InstallationTokenKeeper>(
      context_.strand, context_.clock, std::move(mint), std::move(callbacks));
  auto first = co_await keeper_->start();
  if (!first) {
    keeper_.reset();
    co_return sdk::make_error("GitHub gave no installation token for github.app: " +
                              first.error().message);
  }
  co_return sdk::Result<void>{};
}

void SessionGithub::took_token(const std::string& token) {
  // A secret before anything can print it: the agent reads the file the moment it is written.
  context_.keep_secret(token);
  token_ = token;
  if (auto written = write_files(github::app_token_files(*settings_, token)); !written) {
    context_.log->error("session {}: {}", context_.session_id, written.error().message);
    context_.notice(written.error().message + "; the agent keeps its old token.");
  }
}

void SessionGithub::drop_token() {
  token_.clear();
  if (settings_ && settings_->app)
    if (auto written = write_files(github::app_token_files(*settings_, "")); !written)
      context_.log->error("session {}: {}", context_.session_id, written.error().message);
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

void SessionGithub::close() {
  if (keeper_) keeper_->stop();
  keeper_.reset();
  // A minted token is revoked, so it stops working now rather than up to an hour later, and
  // is not left on disk past its session; the static one is the operator's and stays valid.
  if (settings_ && settings_->app && api_ && !token_.empty())
    asio::co_spawn(context_.strand,
                   revoke_app_token(api_, token_, context_.log, context_.session_id),
                   asio::detached);
  drop_token();
}

asio::awaitable<sdk::Result<SessionGithub::PullRequest>> SessionGithub::pull_request(
    std::string title, const std::filesystem::path& project_dir) {
  if (!settings_)
    co_return sdk::make_error(
        "no GitHub identity is configured (add a `github` block to the configuration)",
        sdk::Error::Kind::refused);
  if (token_.empty())
    co_return sdk::make_error(
        "this session holds no live GitHub token (its renewal failed; see the thread)",
        sdk::Error::Kind::refused);
  auto branch = read_project_branch(project_dir);
  if (!branch) co_return branch.error();
  auto repository = github::repository_of_remote(branch->origin_url, settings_->git_host);
  if (!repository) co_return repository.error();
  if (!api_) api_ = std::make_shared<github::GithubApi>(context_.strand, *settings_);
  auto api = api_;
  const std::string token = token_;
  const github::RepositoryRef repo = *repository;
  const std::string head = branch->branch;
  auto opened = co_await api->open_pull_request(token, repo, head, title);
  if (!opened) co_return opened.error();
  co_return PullRequest{opened->number, opened->html_url, head};
}

}  // namespace errand::sessions
