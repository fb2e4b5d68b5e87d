#pragma once

// The fake GitHub's insides: what it holds (Apps, installations, tokens, repositories, pull
// requests, the request log) under one lock, and the io_context its two listeners run on.

#include "tests/fakes/github/app_jwt_check.hpp"
#include "tests/fakes/github/fake_github.hpp"
#include "tests/fakes/upstream/test_ca.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/json/value.hpp>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace errand::fakes {

struct Installation {
  std::string app_id;
  boost::json::object permissions;
  std::optional<std::pair<unsigned, std::string>> refusal;  // status and message
};

// What a presented token may do.
struct TokenGrant {
  bool every_permission = false;  // a static (personal) token
  boost::json::object permissions;
  std::vector<std::string> repositories;  // empty: all of them
  bool covers(const std::string& repo) const;
  // True when the grant holds permission at level ("read" or "write") or above.
  bool allows(std::string_view permission, std::string_view level) const;
};

// "read" < "write" < "admin"; 0 for anything else.
int permission_rank(std::string_view level);

struct ApiReply {
  unsigned status = 200;
  boost::json::value body;  // a JSON string is sent as a text body, as GitHub's few text answers
  std::vector<std::pair<std::string, std::string>> headers;
};

// GitHub's error body: {"message", "documentation_url"}, and "errors" for a 422.
ApiReply github_error(unsigned status, std::string message, std::string documentation_url,
                      boost::json::array errors = {});

inline constexpr const char* kRestDocs = "https://docs.github.com/rest";

struct FakeGithub::Impl {
  explicit Impl(Options options);
  ~Impl();

  std::chrono::system_clock::time_point now() const;
  std::int64_t now_seconds() const;
  std::optional<TokenGrant> live_grant(const std::string& token) const;
  std::optional<std::filesystem::path> repository_path(const std::string& owner,
                                                       const std::string& repo) const;
  void record(GithubRequest request);
  std::string api_origin() const;  // https://127.0.0.2:<port>, without the path prefix

  Options options;
  std::filesystem::path own_dir;           // made at start, removed at the end
  std::filesystem::path repositories_dir;  // GIT_PROJECT_ROOT: <owner>/<repo>.git beneath it
  std::filesystem::path home_dir;          // HOME for the git the fake runs
  std::filesystem::path ca_path;
  std::filesystem::path git_backend;  // git-http-backend in git's exec path
  TestCertificates certificates;

  mutable std::mutex mutex;
  std::map<std::string, RsaPublicKey> apps;
  std::map<std::string, Installation> installations;
  std::vector<GithubMintedToken> minted;
  std::set<std::string> static_tokens;
  std::map<std::string, std::filesystem::path> repositories;  // "owner/repo"
  std::vector<GithubPullRequest> pulls;
  std::vector<GithubRequest> requests;
  std::chrono::seconds token_lifetime{3600};
  std::chrono::seconds clock_offset{0};

  // Declared before io so the streams the io_context still holds at destruction outlive nothing.
  boost::asio::ssl::context tls{boost::asio::ssl::context::tls_server};
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor api_acceptor{io};
  boost::asio::ip::tcp::acceptor git_acceptor{io};
  std::uint16_t api_port = 0;
  std::uint16_t git_port = 0;
  std::thread thread;
};

// The REST API's answer to one request (github_api_routes.cpp).
struct ApiCall {
  std::string method;
  std::string path;  // beneath the path prefix, without the query
  std::string authorization;
  std::string body;
};
ApiReply answer_api(FakeGithub::Impl& impl, const ApiCall& call);

// POST /app/installations/{id}/access_tokens (installation_tokens.cpp).
ApiReply mint_installation_token(FakeGithub::Impl& impl, const std::string& installation_id,
                                 const std::string& authorization, const std::string& body);

// DELETE /installation/token, authorised by the token it revokes (installation_tokens.cpp).
ApiReply revoke_installation_token(FakeGithub::Impl& impl, const std::string& token);

// The log entry for a request as it arrived: its line and headers, without body or status.
template <class Request>
GithubRequest request_record(std::string listener, const Request& request) {
  GithubRequest recorded;
  recorded.listener = std::move(listener);
  recorded.method = std::string(request.method_string());
  recorded.target = std::string(request.target());
  for (const auto& field : request)
    recorded.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  return recorded;
}

// Opens acceptor on 127.0.0.2 at a port the kernel picks, and returns the port. GitHub's own
// address is not 127.0.0.1, so neither is the fake's: a client that ignores the configured
// origin and assumes loopback's usual address reaches nothing.
std::uint16_t listen_on_fake_address(boost::asio::ip::tcp::acceptor& acceptor);

// The listeners (api_server.cpp, git_server.cpp), started on impl.io.
void start_api_server(FakeGithub::Impl& impl);
void start_git_server(FakeGithub::Impl& impl);

}  // namespace errand::fakes
