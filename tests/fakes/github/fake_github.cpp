#include "tests/fakes/github/fake_github.hpp"

#include "tests/fakes/github/bare_repository.hpp"
#include "tests/fakes/github/github_impl.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/core/string.hpp>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace errand::fakes {

namespace {

std::filesystem::path fresh_directory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "fake-github-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("fake GitHub: cannot make a directory under " +
                             std::filesystem::temp_directory_path().string());
  return pattern;
}

}  // namespace

std::uint16_t listen_on_fake_address(boost::asio::ip::tcp::acceptor& acceptor) {
  const boost::asio::ip::tcp::endpoint where(boost::asio::ip::make_address_v4("127.0.0.2"), 0);
  acceptor.open(where.protocol());
  acceptor.bind(where);
  acceptor.listen();
  return acceptor.local_endpoint().port();
}

std::string GithubRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (boost::beast::iequals(key, name)) return value;
  return {};
}

FakeGithub::Impl::Impl(Options options_)
    : options(std::move(options_)),
      certificates(make_test_certificates("errand fake GitHub CA", "IP:127.0.0.2,DNS:localhost")) {
  own_dir = fresh_directory();
  repositories_dir =
      options.repositories_dir.empty() ? own_dir / "repositories" : options.repositories_dir;
  home_dir = own_dir / "home";
  std::filesystem::create_directories(repositories_dir);
  std::filesystem::create_directories(home_dir);
  ca_path = own_dir / "ca.pem";
  std::ofstream(ca_path) << certificates.ca_pem;
  start_api_server(*this);
  start_git_server(*this);
  thread = std::thread([this] { io.run(); });
}

FakeGithub::Impl::~Impl() {
  boost::asio::post(io, [this] {
    boost::system::error_code ignored;
    api_acceptor.close(ignored);
    git_acceptor.close(ignored);
    io.stop();
  });
  thread.join();
  // The test's own repositories_dir is the test's to remove.
  std::error_code ignored;
  std::filesystem::remove_all(own_dir, ignored);
}

std::chrono::system_clock::time_point FakeGithub::Impl::now() const {
  if (options.clock) return options.clock->now();
  std::lock_guard lock(mutex);
  return std::chrono::system_clock::now() + clock_offset;
}

std::int64_t FakeGithub::Impl::now_seconds() const {
  return std::chrono::duration_cast<std::chrono::seconds>(now().time_since_epoch()).count();
}

std::optional<TokenGrant> FakeGithub::Impl::live_grant(const std::string& token) const {
  if (token.empty()) return std::nullopt;
  const auto at = now();
  std::lock_guard lock(mutex);
  if (static_tokens.count(token)) return TokenGrant{true, {}, {}};
  for (const auto& minted_token : minted)
    if (minted_token.token == token && at < minted_token.expires_at && !minted_token.revoked)
      return TokenGrant{false, minted_token.permissions, minted_token.repositories};
  return std::nullopt;
}

std::optional<std::filesystem::path> FakeGithub::Impl::repository_path(
    const std::string& owner, const std::string& repo) const {
  std::lock_guard lock(mutex);
  const auto found = repositories.find(owner + "/" + repo);
  if (found == repositories.end()) return std::nullopt;
  return found->second;
}

void FakeGithub::Impl::record(GithubRequest request) {
  std::lock_guard lock(mutex);
  requests.push_back(std::move(request));
}

std::string FakeGithub::Impl::api_origin() const {
  return "https://127.0.0.2:" + std::to_string(api_port);
}

FakeGithub::FakeGithub() : FakeGithub(Options{}) {}
FakeGithub::FakeGithub(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
FakeGithub::~FakeGithub() = default;

std::string FakeGithub::api_url() const {
  return impl_->api_origin() + impl_->options.api_path_prefix;
}
std::uint16_t FakeGithub::api_port() const {
  return impl_->api_port;
}
std::uint16_t FakeGithub::git_port() const {
  return impl_->git_port;
}
std::string FakeGithub::git_url(const std::string& owner, const std::string& repo) const {
  return "http://127.0.0.2:" + std::to_string(impl_->git_port) + "/" + owner + "/" + repo + ".git";
}
const std::string& FakeGithub::ca_pem() const {
  return impl_->certificates.ca_pem;
}
std::filesystem::path FakeGithub::ca_file() const {
  return impl_->ca_path;
}

void FakeGithub::add_app(std::string app_id, std::string_view public_key_pem) {
  auto key = read_rsa_public_key(public_key_pem);
  std::lock_guard lock(impl_->mutex);
  impl_->apps[std::move(app_id)] = std::move(key);
}

void FakeGithub::add_installation(std::string installation_id, std::string app_id) {
  add_installation(
      std::move(installation_id), std::move(app_id),
      boost::json::object{{"contents", "write"}, {"metadata", "read"}, {"pull_requests", "write"}});
}

void FakeGithub::add_installation(std::string installation_id, std::string app_id,
                                  boost::json::object permissions) {
  std::lock_guard lock(impl_->mutex);
  impl_->installations[std::move(installation_id)] =
      Installation{std::move(app_id), std::move(permissions), std::nullopt};
}

void FakeGithub::set_refuse_installation(std::string installation_id, unsigned status,
                                         std::string message) {
  std::lock_guard lock(impl_->mutex);
  const auto found = impl_->installations.find(installation_id);
  if (found == impl_->installations.end())
    throw std::invalid_argument("fake GitHub: no installation " + installation_id);
  found->second.refusal.emplace(status, std::move(message));
}

void FakeGithub::set_token_lifetime(std::chrono::seconds lifetime) {
  std::lock_guard lock(impl_->mutex);
  impl_->token_lifetime = lifetime;
}

void FakeGithub::accept_static_token(std::string token) {
  std::lock_guard lock(impl_->mutex);
  impl_->static_tokens.insert(std::move(token));
}

void FakeGithub::advance_clock(std::chrono::seconds by) {
  if (impl_->options.clock)
    throw std::logic_error("fake GitHub: its clock is the test's own; move that one instead");
  std::lock_guard lock(impl_->mutex);
  impl_->clock_offset += by;
}

std::chrono::system_clock::time_point FakeGithub::now() const {
  return impl_->now();
}

std::filesystem::path FakeGithub::create_repository(const std::string& owner,
                                                    const std::string& repo) {
  const auto bare = impl_->repositories_dir / owner / (repo + ".git");
  std::filesystem::create_directories(bare.parent_path());
  init_bare_repository(bare, impl_->home_dir);
  std::lock_guard lock(impl_->mutex);
  impl_->repositories[owner + "/" + repo] = bare;
  return bare;
}

std::vector<GithubMintedToken> FakeGithub::minted_tokens() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->minted;
}

std::vector<GithubPullRequest> FakeGithub::pull_requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->pulls;
}

std::vector<GithubRequest> FakeGithub::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

}  // namespace errand::fakes
