// The fake GitHub's repositories, branches and pull requests: branches are the bare
// repository's real refs, and a pull request is recorded only when GitHub would open it.

#include "tests/fakes/github/fake_github.hpp"
#include "tests/unit/fakes/support/git_work_tree.hpp"
#include "tests/unit/fakes/support/github_call.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace errand;
using test::github_call;

namespace {

constexpr const char* kToken = "ghp_static_token_for_tests";

struct RepositoryFixture {
  explicit RepositoryFixture(fakes::FakeGithub::Options options = {})
      : github(std::move(options)), bare(github.create_repository("octo", "widgets")) {
    github.accept_static_token(kToken);
    main_commit = tree.commit("README", "hello\n", "first");
    REQUIRE(tree.git({"push", "--quiet", bare.string(), "main"}).exit_code == 0);
  }
  std::string push_feature(const std::string& branch) {
    REQUIRE(tree.git({"checkout", "--quiet", "-b", branch}).exit_code == 0);
    const auto commit = tree.commit("feature.txt", branch + "\n", "work on " + branch);
    REQUIRE(tree.git({"push", "--quiet", bare.string(), branch}).exit_code == 0);
    return commit;
  }
  test::GithubAnswer open_pull(const std::string& body) {
    return github_call(github, "POST", "/repos/octo/widgets/pulls", std::string("token ") + kToken,
                       body);
  }

  fakes::FakeGithub github;
  std::filesystem::path bare;
  test::GitWorkTree tree;
  std::string main_commit;
};

}  // namespace

TEST_CASE("a branch is visible exactly when the bare repository holds it") {
  RepositoryFixture repo;
  const auto auth = std::string("token ") + kToken;
  const auto main = github_call(repo.github, "GET", "/repos/octo/widgets/branches/main", auth);
  REQUIRE(main.status == 200);
  CHECK(main.body.as_object().at("commit").as_object().at("sha").as_string() == repo.main_commit);
  const auto absent = github_call(repo.github, "GET", "/repos/octo/widgets/branches/topic/x", auth);
  CHECK(absent.status == 404);
  CHECK(absent.message() == "Branch not found");
  const auto commit = repo.push_feature("topic/x");
  const auto pushed = github_call(repo.github, "GET", "/repos/octo/widgets/branches/topic/x", auth);
  REQUIRE(pushed.status == 200);
  CHECK(pushed.body.as_object().at("name") == "topic/x");
  CHECK(pushed.body.as_object().at("commit").as_object().at("sha").as_string() == commit);
  CHECK(github_call(repo.github, "GET", "/repos/octo/nothing", auth).status == 404);
  CHECK(github_call(repo.github, "GET", "/repos/octo/nothing/branches/main", auth).status == 404);
  CHECK(github_call(repo.github, "GET", "/no/such/endpoint", auth).status == 404);
  const auto anonymous_client =
      github_call(repo.github, "GET", "/repos/octo/widgets", auth, {}, false);
  CHECK(anonymous_client.status == 403);
  CHECK(anonymous_client.body.as_string().find("User-Agent") != std::string::npos);
}

TEST_CASE("a pull request from a pushed branch is opened and recorded with the token used") {
  RepositoryFixture repo;
  repo.push_feature("feature");
  const auto opened = repo.open_pull(R"({"title":"Add a feature","head":"feature","base":"main"})");
  REQUIRE(opened.status == 201);
  const auto& body = opened.body.as_object();
  CHECK(body.at("number") == 1);
  CHECK(body.at("state") == "open");
  const std::string html_url(body.at("html_url").as_string());
  CHECK(html_url ==
        "https://127.0.0.2:" + std::to_string(repo.github.api_port()) + "/octo/widgets/pull/1");
  CHECK(opened.location == repo.github.api_url() + "/repos/octo/widgets/pulls/1");
  const auto pulls = repo.github.pull_requests();
  REQUIRE(pulls.size() == 1);
  CHECK(pulls[0].title == "Add a feature");
  CHECK(pulls[0].head == "feature");
  CHECK(pulls[0].base == "main");
  CHECK(pulls[0].html_url == html_url);
  CHECK(pulls[0].token == kToken);
  const auto read_back = github_call(repo.github, "GET", "/repos/octo/widgets/pulls/1",
                                     std::string("token ") + kToken);
  REQUIRE(read_back.status == 200);
  CHECK(read_back.body.as_object().at("html_url").as_string() == html_url);
  CHECK(read_back.body.as_object().at("head").as_object().at("ref") == "feature");
  CHECK(
      github_call(repo.github, "GET", "/repos/octo/widgets/pulls/2", std::string("token ") + kToken)
          .status == 404);

  const auto again = repo.open_pull(R"({"title":"Again","head":"octo:feature","base":"main"})");
  CHECK(again.status == 422);
  CHECK(again.body.as_object().at("errors").as_array().at(0).as_object().at("message") ==
        "A pull request already exists for octo:feature.");
  CHECK(repo.github.pull_requests().size() == 1);
}

TEST_CASE("a pull request GitHub would refuse is refused 422 and not recorded") {
  RepositoryFixture repo;
  const auto unknown_head = repo.open_pull(R"({"title":"t","head":"never-pushed","base":"main"})");
  REQUIRE(unknown_head.status == 422);
  CHECK(unknown_head.message() == "Validation Failed");
  const auto& error = unknown_head.body.as_object().at("errors").as_array().at(0).as_object();
  CHECK(error.at("field") == "head");
  CHECK(error.at("code") == "invalid");
  CHECK(unknown_head.body.as_object().contains("documentation_url"));

  const auto no_title = repo.open_pull(R"({"head":"main","base":"main"})");
  CHECK(no_title.status == 422);
  CHECK(no_title.body.as_object().at("errors").as_array().at(0).as_object().at("code") ==
        "missing_field");
  const auto nothing_new = repo.open_pull(R"({"title":"t","head":"main","base":"main"})");
  CHECK(nothing_new.status == 422);
  CHECK(nothing_new.body.as_object().at("errors").as_array().at(0).as_object().at("message") ==
        "No commits between main and main");
  CHECK(repo.open_pull("[1,2").status == 400);
  CHECK(github_call(repo.github, "POST", "/repos/octo/widgets/pulls", "token wrong",
                    R"({"title":"t","head":"main","base":"main"})")
            .status == 401);
  CHECK(repo.github.pull_requests().empty());
}

TEST_CASE("with a path prefix the API answers beneath it, as GitHub Enterprise does") {
  fakes::FakeGithub::Options options;
  options.api_path_prefix = "/api/v3";
  RepositoryFixture repo(options);
  CHECK(repo.github.api_url() ==
        "https://127.0.0.2:" + std::to_string(repo.github.api_port()) + "/api/v3");
  CHECK(github_call(repo.github, "GET", "/repos/octo/widgets", std::string("token ") + kToken)
            .status == 200);
  const auto requests = repo.github.requests();
  REQUIRE_FALSE(requests.empty());
  CHECK(requests.back().target == "/api/v3/repos/octo/widgets");
  CHECK(requests.back().status == 200);
  CHECK(requests.back().header("authorization") == std::string("token ") + kToken);
}
