#pragma once

// A GitHub for tests, speaking the real service's wire shapes so a client tested against it
// talks to GitHub unchanged. Two listeners on 127.0.0.2, each on a port the kernel picks:
//  - the REST API over TLS (a certificate from fakes::TestCa for 127.0.0.2): installation
//    tokens minted for a GitHub App whose RS256 JWT is really verified, repositories, branches
//    and pull requests;
//  - git smart HTTP over plain http, served by the real `git http-backend` from bare
//    repositories the test creates, with Basic auth whose password must be a live token.
// Time is the fake's clock (the test's sdk::Clock, or the system's moved by advance_clock), so
// a test can make tokens and JWTs expire. It serves on a thread of its own; every member is safe
// to call from the test's thread.

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/host_services.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::fakes {

struct GithubMintedToken {
  std::string token;
  std::string installation_id;
  std::chrono::system_clock::time_point expires_at;
  boost::json::object permissions;
  std::vector<std::string> repositories;  // empty: every repository the fake holds
  bool revoked = false;                   // by DELETE /installation/token; refused after
};

struct GithubPullRequest {
  std::uint64_t number = 0;
  std::string owner, repo;
  std::string title, head, base, body;
  std::string html_url;
  std::string token;  // the credential the request carried
};

struct GithubRequest {
  std::string listener;  // "api" or "git"
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // API requests only: a git request's body goes to http-backend as it comes
  unsigned status = 0;
  // The first header of that name, compared without case; empty when absent.
  std::string header(std::string_view name) const;
};

class FakeGithub {
 public:
  struct Options {
    // The time every check and expiry uses; null: the system clock plus advance_clock's offset.
    const sdk::Clock* clock = nullptr;
    // Served beneath this path, as GitHub Enterprise serves its API beneath /api/v3.
    std::string api_path_prefix;
    // Where the bare repositories live; empty: a fresh temporary directory, removed at the end.
    std::filesystem::path repositories_dir;
  };

  FakeGithub();
  explicit FakeGithub(Options options);
  ~FakeGithub();
  FakeGithub(const FakeGithub&) = delete;
  FakeGithub& operator=(const FakeGithub&) = delete;

  std::string api_url() const;  // https://127.0.0.2:<port><api_path_prefix>
  std::uint16_t api_port() const;
  std::uint16_t git_port() const;
  const std::string& ca_pem() const;
  // The CA written as a PEM file in the fake's directory, for github.caFile.
  std::filesystem::path ca_file() const;

  // An App whose JWTs are verified with public_key_pem (a PUBLIC KEY, or an RSA private key whose
  // public half is used). Throws std::invalid_argument when it is not an RSA key.
  void add_app(std::string app_id, std::string_view public_key_pem);
  // An installation of app_id, granted permissions (default contents and pull_requests write,
  // metadata read) on every repository the fake holds.
  void add_installation(std::string installation_id, std::string app_id);
  void add_installation(std::string installation_id, std::string app_id,
                        boost::json::object permissions);
  // From now on POST .../access_tokens for this installation answers status with message.
  void set_refuse_installation(std::string installation_id, unsigned status, std::string message);
  void set_token_lifetime(std::chrono::seconds lifetime);  // 3600 s by default, as GitHub's
  // A personal token accepted by the API and by git, with every permission (github.token).
  void accept_static_token(std::string token);
  // Moves the fake's own clock; throws std::logic_error when the test gave a clock of its own.
  void advance_clock(std::chrono::seconds by);
  std::chrono::system_clock::time_point now() const;

  // A bare repository owner/repo (default branch main, pushes allowed) and its path.
  std::filesystem::path create_repository(const std::string& owner, const std::string& repo);
  // http://127.0.0.2:<git port>/<owner>/<repo>.git
  std::string git_url(const std::string& owner, const std::string& repo) const;

  std::vector<GithubMintedToken> minted_tokens() const;
  std::vector<GithubPullRequest> pull_requests() const;
  std::vector<GithubRequest> requests() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// An RSA key pair for a test App: the private key as PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"), the
// form GitHub hands out, and its public key as PEM.
struct TestAppKey {
  std::string private_key_pem;
  std::string public_key_pem;
};
TestAppKey make_test_app_key(unsigned bits = 2048);

}  // namespace errand::fakes
