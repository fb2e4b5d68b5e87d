// The client against the fake GitHub (tests/fakes/github), which verifies the App's JWT as
// GitHub does: tokens minted and renewed under one manual clock, GitHub's refusals, and !pr's
// three calls over a real bare repository.

#include "core/github/github_api.hpp"
#include "core/github/github_at_start.hpp"
#include "core/github/installation_token_keeper.hpp"
#include "tests/fakes/github/fake_github.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/support/poll_until.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/github/test_keys.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <mutex>
#include <thread>

using namespace errand::github;
using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// The fake on the test's manual clock, one App with one installation, and the configuration
// errand would read for it, checked as the daemon checks it at start.
struct FakeScene {
  errand::test::ManualClock clock;
  errand::fakes::FakeGithub github{errand::fakes::FakeGithub::Options{&clock, "/api/v3", {}}};
  errand::test::TempDir dir;
  GithubIdentity identity;

  explicit FakeScene(std::string_view narrowing = "") {
    const auto key = errand::fakes::make_test_app_key();
    github.add_app("12345", key.public_key_pem);
    github.add_installation("67890", "12345");
    testing::write_with_mode(dir / "app.pem", key.private_key_pem, 0600);
    std::string config = R"({"github": {"userName": "errand-bot", "userEmail": "bot@example.com",
        "apiBase": ")" + github.api_url() +
                         R"(", "caFile": ")" + github.ca_file().string() +
                         R"(", "app": {"appId": 12345, "installationId": 67890,
        "privateKeyPath": ")" +
                         (dir / "app.pem").string() + "\"" + std::string(narrowing) + "}}}";
    auto checked = check_github_at_start(json::parse(config).as_object());
    REQUIRE(checked.has_value());
    REQUIRE(checked->has_value());
    identity = std::move(**checked);
  }

  template <class Call>
  auto run(Call call) {
    asio::io_context io;
    GithubApi api(io.get_executor(), identity.settings);
    auto answer = asio::co_spawn(io, call(api), asio::use_future);
    io.run();
    return answer.get();
  }

  errand::sdk::Result<InstallationToken> mint() {
    return run([&](GithubApi& api) {
      return api.create_installation_token(*identity.app_key, *identity.settings.app, clock.now());
    });
  }
};

// main with one commit, and `branch` one commit ahead of it, made in the bare repository.
void branch_ahead(const std::filesystem::path& bare, const std::string& branch) {
  const auto made = errand::test::run_to_end(
      {"/bin/sh", "-c",
       "set -e; empty=$(git hash-object -t tree -w /dev/null);"
       "a=$(git commit-tree $empty -m base); b=$(git commit-tree $empty -p $a -m change);"
       "git update-ref refs/heads/main $a; git update-ref \"refs/heads/$0\" $b",
       branch},
      {"PATH=/usr/bin:/bin", "GIT_DIR=" + bare.string(), "HOME=" + bare.string(),
       "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
       "GIT_COMMITTER_EMAIL=t@example.com"},
      bare.parent_path());
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
}

}  // namespace

TEST_CASE("an installation token is minted by GitHub's rules, narrowed as configured",
          "[github][fake-github][key:github.app.privateKeyPath][key:github.app.repositories]"
          "[key:github.app.permissions.<name>]") {
  FakeScene scene(R"(, "repositories": ["widgets"], "permissions": {"contents": "read"})");
  scene.github.create_repository("acme", "widgets");
  const auto minted = scene.mint();
  REQUIRE(minted.has_value());
  CHECK(minted->expires_at == scene.clock.now() + 1h);
  const auto tokens = scene.github.minted_tokens();
  REQUIRE(tokens.size() == 1);
  CHECK(tokens[0].token == minted->token);
  CHECK(tokens[0].installation_id == "67890");
  CHECK(tokens[0].repositories == std::vector<std::string>{"widgets"});
  CHECK(tokens[0].permissions.at("contents") == "read");
}

TEST_CASE("an installation GitHub refuses is said with GitHub's status and message",
          "[github][fake-github]") {
  FakeScene scene;
  scene.github.set_refuse_installation("67890", 403, "This installation has been suspended");
  const auto minted = scene.mint();
  REQUIRE_FALSE(minted.has_value());
  CHECK_THAT(minted.error().message,
             ContainsSubstring("(403: \"This installation has been suspended\")"));
  CHECK(scene.github.minted_tokens().empty());
}

TEST_CASE("the keeper renews the App token under the manual clock before GitHub's hour is up",
          "[github][fake-github][keeper][key:github.app.appId]") {
  FakeScene scene;
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  GithubApi api(io.get_executor(), scene.identity.settings);
  std::mutex mutex;
  std::vector<InstallationToken> given;
  TokenKeeperTiming timing;
  timing.tick = 2ms;
  auto keeper = std::make_shared<InstallationTokenKeeper>(
      io.get_executor(), scene.clock,
      mint_with(api, *scene.identity.app_key, *scene.identity.settings.app),
      TokenKeeperCallbacks{[&](const InstallationToken& t) {
                             std::lock_guard lock(mutex);
                             given.push_back(t);
                           },
                           {},
                           {}},
      timing);
  std::thread runner([&] { io.run(); });
  const auto first = asio::co_spawn(io, keeper->start(), asio::use_future).get();
  REQUIRE(first.has_value());
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        scene.clock.advance(51min);
        co_return;
      },
      asio::use_future)
      .get();
  const bool renewed = errand::test::poll_until(
      [&] {
        std::lock_guard lock(mutex);
        return given.size() == 2;
      },
      10s);
  asio::post(io, [&] { keeper->stop(); });
  work.reset();
  runner.join();
  REQUIRE(renewed);
  CHECK(given[1].token != given[0].token);
  CHECK(given[1].expires_at == scene.clock.now() + 1h);
  CHECK(scene.github.minted_tokens().size() == 2);
}

TEST_CASE("!pr's calls open a pull request from the pushed branch into the default branch",
          "[github][fake-github]") {
  FakeScene scene;
  branch_ahead(scene.github.create_repository("acme", "widgets"), "errand/fix-1");
  const auto token = scene.mint();
  REQUIRE(token.has_value());
  const auto pull = scene.run([&](GithubApi& api) {
    return api.open_pull_request(token->token, {"acme", "widgets"}, "errand/fix-1",
                                 "Fix the widget");
  });
  REQUIRE(pull.has_value());
  const auto pulls = scene.github.pull_requests();
  REQUIRE(pulls.size() == 1);
  CHECK(pulls[0].head == "errand/fix-1");
  CHECK(pulls[0].base == "main");
  CHECK(pulls[0].title == "Fix the widget");
  CHECK(pulls[0].token == token->token);
  CHECK(pull->html_url == pulls[0].html_url);
  CHECK(pull->number == static_cast<std::int64_t>(pulls[0].number));

  // The same again: GitHub's 422 says why.
  const auto again = scene.run([&](GithubApi& api) {
    return api.open_pull_request(token->token, {"acme", "widgets"}, "errand/fix-1", "Again");
  });
  REQUIRE_FALSE(again.has_value());
  CHECK_THAT(again.error().message, ContainsSubstring("(422: \"Validation Failed; A pull request "
                                                      "already exists"));

  const auto unpushed = scene.run([&](GithubApi& api) {
    return api.open_pull_request(token->token, {"acme", "widgets"}, "errand/other", "Title");
  });
  REQUIRE_FALSE(unpushed.has_value());
  CHECK_THAT(unpushed.error().message, ContainsSubstring("push it first"));
}

TEST_CASE("a key file others may read stops the start with the chmod to run", "[github]") {
  errand::test::TempDir dir;
  testing::write_with_mode(dir / "app.pem", errand::fakes::make_test_app_key().private_key_pem,
                           0640);
  const auto config = json::parse(R"({"github": {"userName": "b", "userEmail": "b@x",
      "app": {"appId": "1", "installationId": "2", "privateKeyPath": ")" +
                                  (dir / "app.pem").string() + R"("}}})");
  const auto checked = check_github_at_start(config.as_object());
  REQUIRE_FALSE(checked.has_value());
  CHECK_THAT(checked.error().message, ContainsSubstring("github.app.privateKeyPath: "));
  CHECK_THAT(checked.error().message, ContainsSubstring("chmod 600"));
  CHECK(check_github_at_start(json::object{}).value() == std::nullopt);
}
