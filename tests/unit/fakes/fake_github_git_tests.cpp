// The fake GitHub's git smart HTTP: the real `git clone` and `git push` reach real bare
// repositories through git http-backend, only with a live token as the Basic password, and what
// a push lands is what the API then reports.

#include "tests/fakes/github/fake_github.hpp"
#include "tests/unit/fakes/support/git_work_tree.hpp"
#include "tests/unit/fakes/support/github_call.hpp"

#include <openssl/rand.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand;
using test::github_call;

namespace {

// git_url with the credential in it, the way a credential helper would hand it to git.
std::string url_with(const fakes::FakeGithub& github, const std::string& password,
                     const std::string& repo = "widgets") {
  const auto url = github.git_url("octo", repo);
  return "http://x-access-token:" + password + "@" + url.substr(std::string("http://").size());
}

struct AppInstallation {
  AppInstallation() {
    github.add_app("1001", key.public_key_pem);
    github.add_installation("2002", "1001");
    github.create_repository("octo", "widgets");
  }
  std::string mint(const std::string& body = {}) {
    const auto answer =
        github_call(github, "POST", "/app/installations/2002/access_tokens",
                    "Bearer " + test::app_jwt(key.private_key_pem, "1001", github.now()), body);
    REQUIRE(answer.status == 201);
    return std::string(answer.body.as_object().at("token").as_string());
  }
  std::optional<std::string> branch_sha(const std::string& token, const std::string& branch) {
    const auto answer =
        github_call(github, "GET", "/repos/octo/widgets/branches/" + branch, "token " + token);
    if (answer.status != 200) return std::nullopt;
    return std::string(answer.body.as_object().at("commit").as_object().at("sha").as_string());
  }

  fakes::TestAppKey key = fakes::make_test_app_key();
  fakes::FakeGithub github;
};

std::string random_bytes(std::size_t size) {
  std::string bytes(size, '\0');
  REQUIRE(RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(size)) == 1);
  return bytes;
}

// One git-upload-pack POST, as git sends it, answered by the fake's git listener.
boost::beast::http::response<boost::beast::http::string_body> upload_pack(
    const fakes::FakeGithub& github, const std::string& password, const std::string& body,
    bool gzipped) {
  namespace http = boost::beast::http;
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.2"), github.git_port()});
  http::request<http::string_body> request{http::verb::post, "/octo/widgets.git/git-upload-pack",
                                           11};
  request.set(http::field::host, "127.0.0.2");
  request.set(http::field::content_type, "application/x-git-upload-pack-request");
  request.set(http::field::authorization,
              "Basic " + test::base64(std::string("x-access-token:") + password));
  if (gzipped) request.set(http::field::content_encoding, "gzip");
  request.body() = body;
  request.prepare_payload();
  http::write(socket, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return response;
}

}  // namespace

TEST_CASE("a gzip request body reaches http-backend as git sends it, and is inflated there") {
  AppInstallation app;
  const auto token = app.mint();
  test::GitWorkTree tree;
  const auto commit = tree.commit("README", "hello\n", "first");
  REQUIRE(tree.git({"push", "--quiet", url_with(app.github, token), "main"}).exit_code == 0);

  // Protocol v0 negotiation: one want, a flush, done.
  const std::string negotiation = "0032want " + commit + "\n" + "0000" + "0009done\n";
  test::TempDir dir;
  test::write_file(dir / "request", negotiation);
  REQUIRE(test::run_to_end({"/bin/gzip", "-n", (dir / "request").string()}, {"PATH=/usr/bin:/bin"},
                           dir.path())
              .exit_code == 0);
  const auto gzipped = test::read_file(dir / "request.gz");
  REQUIRE(gzipped != negotiation);

  const auto packed = upload_pack(app.github, token, gzipped, true);
  CHECK(packed.result_int() == 200);
  CHECK(packed[boost::beast::http::field::content_type] == "application/x-git-upload-pack-result");
  CHECK(packed.body().rfind("0008NAK\n", 0) == 0);
  CHECK(packed.body().find("PACK") != std::string::npos);
  // The same bytes not declared as gzip are not a negotiation http-backend can read.
  const auto undeclared = upload_pack(app.github, token, gzipped, false);
  CHECK(undeclared.body().find("PACK") == std::string::npos);
  CHECK(upload_pack(app.github, "wrong", gzipped, true).result_int() == 401);
}

TEST_CASE("a clone, commit and push over http with an installation token lands on the branch") {
  AppInstallation app;
  const auto token = app.mint();
  test::GitWorkTree tree;
  REQUIRE(tree.git({"remote", "add", "origin", url_with(app.github, token)}).exit_code == 0);
  const auto first = tree.commit("README", "hello\n", "first");
  const auto pushed = tree.git({"push", "origin", "main"});
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);
  CHECK(app.branch_sha(token, "main") == first);

  // Past http.postBuffer (1 MiB) git streams the pack chunked; it must arrive whole.
  REQUIRE(tree.git({"checkout", "--quiet", "-b", "feature"}).exit_code == 0);
  const auto big = tree.commit("blob.bin", random_bytes(3u << 20), "a large incompressible file");
  const auto big_push = tree.git({"push", "origin", "feature"});
  INFO(big_push.err);
  REQUIRE(big_push.exit_code == 0);
  CHECK(app.branch_sha(token, "feature") == big);

  // Every request git made that http-backend answered carried the credential.
  bool saw_refusal = false, saw_answer = false;
  for (const auto& request : app.github.requests()) {
    if (request.listener != "git") continue;
    if (request.status == 401) saw_refusal = true;
    if (request.status == 200) {
      saw_answer = true;
      CHECK(request.header("authorization").rfind("Basic ", 0) == 0);
    }
  }
  CHECK(saw_refusal);  // git asks without a credential first, and is told to bring one
  CHECK(saw_answer);

  // A fresh clone of what was pushed has both commits.
  test::GitWorkTree other;
  const auto fetched = other.git({"fetch", "--quiet", url_with(app.github, token), "feature"});
  INFO(fetched.err);
  REQUIRE(fetched.exit_code == 0);
  const auto head = other.git({"rev-parse", "FETCH_HEAD"});
  CHECK(head.out.substr(0, head.out.find('\n')) == big);

  // The pushed branch can now be proposed.
  const auto pull = github_call(app.github, "POST", "/repos/octo/widgets/pulls", "token " + token,
                                R"({"title":"Big file","head":"feature","base":"main"})");
  CHECK(pull.status == 201);
  REQUIRE(app.github.pull_requests().size() == 1);
  CHECK(app.github.pull_requests()[0].token == token);
}

TEST_CASE("a push with a wrong, expired or read-only credential is refused and lands nothing") {
  AppInstallation app;
  const auto token = app.mint();
  test::GitWorkTree tree;
  tree.commit("README", "hello\n", "first");

  const auto wrong = tree.git({"push", url_with(app.github, "not-a-token"), "main"});
  CHECK(wrong.exit_code != 0);
  CHECK(wrong.err.find("Authentication failed") != std::string::npos);
  CHECK_FALSE(app.branch_sha(token, "main"));

  const auto read_only = app.mint(R"({"permissions":{"contents":"read"}})");
  const auto refused = tree.git({"push", url_with(app.github, read_only), "main"});
  CHECK(refused.exit_code != 0);
  CHECK(refused.err.find("403") != std::string::npos);
  CHECK_FALSE(app.branch_sha(token, "main"));
  // Reading is what that token may do.
  test::GitWorkTree reader;
  CHECK(reader.git({"ls-remote", url_with(app.github, read_only)}).exit_code == 0);

  app.github.advance_clock(std::chrono::seconds(3600));
  const auto expired = tree.git({"push", url_with(app.github, token), "main"});
  CHECK(expired.exit_code != 0);
  CHECK(expired.err.find("Authentication failed") != std::string::npos);

  const auto fresh = app.mint();
  CHECK_FALSE(app.branch_sha(fresh, "main"));
  bool refused_with_realm = false;
  for (const auto& request : app.github.requests())
    if (request.listener == "git" && request.status == 401) refused_with_realm = true;
  CHECK(refused_with_realm);

  CHECK(tree.git({"push", url_with(app.github, fresh, "elsewhere"), "main"}).exit_code != 0);
}

TEST_CASE("a static token is accepted by git as a personal token is") {
  fakes::FakeGithub github;
  github.create_repository("octo", "widgets");
  github.accept_static_token("ghp_static_token_for_tests");
  test::GitWorkTree tree;
  const auto commit = tree.commit("README", "hello\n", "first");
  const auto pushed = tree.git({"push", url_with(github, "ghp_static_token_for_tests"), "main"});
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);
  const auto branch = github_call(github, "GET", "/repos/octo/widgets/branches/main",
                                  "token ghp_static_token_for_tests");
  REQUIRE(branch.status == 200);
  CHECK(branch.body.as_object().at("commit").as_object().at("sha").as_string() == commit);
}
