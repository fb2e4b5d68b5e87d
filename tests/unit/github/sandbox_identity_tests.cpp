// What a sandbox is given for GitHub, run for real: the credential helper by /bin/sh and by git
// itself through the GIT_CONFIG_* variables, answering the git host alone.

#include "core/agent/state_files.hpp"
#include "core/github/sandbox_identity.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::github;
using Catch::Matchers::ContainsSubstring;
namespace fs = std::filesystem;

namespace {

GithubSettings static_token(std::string api_base = "https://api.github.com") {
  GithubSettings settings;
  settings.token = "ghp_static0123456789";
  settings.user_name = "errand-bot";
  settings.user_email = "bot@example.com";
  settings.api_base = api_base;
  settings.git_host = git_host_for(api_base);
  return settings;
}

GithubSettings app(std::string api_base) {
  auto settings = static_token(std::move(api_base));
  settings.token.clear();
  settings.app = AppSettings{"12345", "67890", "/etc/errand/app.pem", {}, {}};
  return settings;
}

// Writes what the sandbox is given into a directory standing for the session's state.
SandboxIdentity rendered(const GithubSettings& settings, const errand::test::TempDir& state) {
  auto identity = sandbox_identity(settings, state.path().string());
  for (const auto& file : identity.files)
    REQUIRE(errand::agent::write_beneath(state.path(), file.relative_path, file.content, file.mode)
                .has_value());
  return identity;
}

// The helper run as git runs it: `<helper> <operation>` with the request on stdin.
errand::test::Finished ask_helper(const errand::test::TempDir& state, const std::string& operation,
                                  const std::string& request,
                                  std::vector<std::string> environment = {}) {
  errand::test::write_file(state / "request", request);
  environment.emplace_back("PATH=/usr/bin:/bin");
  return errand::test::run_to_end({"/bin/sh", "-c", "exec /bin/sh \"$0\" \"$1\" < \"$2\"",
                                   (state.path() / std::string(kCredentialHelperFile)).string(),
                                   operation, (state / "request").string()},
                                  environment, state.path());
}

std::string value_of(const SandboxIdentity& identity, std::string_view name) {
  for (const auto& [key, value] : identity.env)
    if (key == name) return value;
  return {};
}

bool has(const SandboxIdentity& identity, std::string_view name) {
  for (const auto& entry : identity.env)
    if (entry.first == name) return true;
  return false;
}

}  // namespace

TEST_CASE("the helper answers git's get for the git host over https, with the token",
          "[github][credential][key:github.token]") {
  errand::test::TempDir state;
  const auto identity = rendered(static_token(), state);
  struct stat status {};
  REQUIRE(::stat((state.path() / std::string(kCredentialHelperFile)).c_str(), &status) == 0);
  CHECK((status.st_mode & 07777) == 0755);

  const auto answered = ask_helper(state, "get", "protocol=https\nhost=github.com\n\n",
                                   {"GH_TOKEN=" + value_of(identity, "GH_TOKEN")});
  CHECK(answered.exit_code == 0);
  CHECK(answered.out == "username=x-access-token\npassword=ghp_static0123456789\n");
}

TEST_CASE("the helper says nothing for another host, plain http to a remote host, or store",
          "[github][credential]") {
  errand::test::TempDir state;
  rendered(static_token(), state);
  const std::vector<std::string> token{"GH_TOKEN=ghp_static0123456789"};
  for (const auto* request :
       {"protocol=https\nhost=gitlab.com\n\n", "protocol=https\nhost=github.com.evil.net\n\n",
        "protocol=http\nhost=github.com\n\n", "protocol=https\n\n"}) {
    INFO(request);
    const auto silent = ask_helper(state, "get", request, token);
    CHECK(silent.exit_code == 0);
    CHECK(silent.out.empty());
  }
  for (const auto* operation : {"store", "erase"}) {
    INFO(operation);
    const auto silent = ask_helper(
        state, operation,
        "protocol=https\nhost=github.com\nusername=x-access-token\npassword=ghp_x\n\n", token);
    CHECK(silent.exit_code == 0);
    CHECK(silent.out.empty());
  }
}

TEST_CASE("an App's helper reads the token file, and answers http only for a loopback git host",
          "[github][credential][key:github.app.installationId]") {
  errand::test::TempDir state;
  const auto settings = app("https://127.0.0.2:8443");
  const auto identity = rendered(settings, state);
  CHECK_FALSE(has(identity, "GH_TOKEN"));
  CHECK(value_of(identity, "GH_HOST") == "127.0.0.2");

  // No token file yet: nothing to answer.
  CHECK(ask_helper(state, "get", "protocol=http\nhost=127.0.0.2:9418\n\n").out.empty());
  for (const auto& file : app_token_files(settings, "ghs_minted0123456789"))
    REQUIRE(errand::agent::write_beneath(state.path(), file.relative_path, file.content, file.mode)
                .has_value());
  const auto answered = ask_helper(state, "get", "protocol=http\nhost=127.0.0.2:9418\n\n");
  CHECK(answered.out == "username=x-access-token\npassword=ghs_minted0123456789\n");
  CHECK(ask_helper(state, "get", "protocol=https\nhost=127.0.0.2\n\n").out == answered.out);
  CHECK(ask_helper(state, "get", "protocol=http\nhost=127.0.0.3:9418\n\n").out.empty());
  CHECK_THAT(errand::test::read_file(state.path() / std::string(kGhHostsFile)),
             ContainsSubstring("oauth_token: \"ghs_minted0123456789\""));
}

TEST_CASE("git itself, configured by the variables alone, gets the token from the helper",
          "[github][credential][key:github.userName][key:github.userEmail]") {
  errand::test::TempDir state;
  const auto identity = rendered(static_token(), state);
  std::vector<std::string> environment{"PATH=/usr/bin:/bin", "HOME=" + state.path().string(),
                                       "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1"};
  for (const auto& [name, value] : identity.env) environment.push_back(name + "=" + value);

  errand::test::write_file(state / "request", "protocol=https\nhost=github.com\npath=o/r.git\n\n");
  const auto filled = errand::test::run_to_end(
      {"/bin/sh", "-c", "exec git credential fill < \"$0\"", (state / "request").string()},
      environment, state.path());
  INFO(filled.err);
  CHECK(filled.exit_code == 0);
  CHECK_THAT(filled.out, ContainsSubstring("username=x-access-token\n"));
  CHECK_THAT(filled.out, ContainsSubstring("password=ghp_static0123456789\n"));

  // Another host gets nothing from the helper, and git, unable to prompt, gives up.
  errand::test::write_file(state / "request", "protocol=https\nhost=gitlab.com\n\n");
  const auto refused = errand::test::run_to_end(
      {"/bin/sh", "-c", "exec git credential fill < \"$0\"", (state / "request").string()},
      environment, state.path());
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.out, !ContainsSubstring("ghp_static0123456789"));

  const auto name =
      errand::test::run_to_end({"/usr/bin/git", "config", "user.name"}, environment, state.path());
  CHECK(name.out == "errand-bot\n");
  const auto email =
      errand::test::run_to_end({"/usr/bin/git", "config", "user.email"}, environment, state.path());
  CHECK(email.out == "bot@example.com\n");
}

TEST_CASE("a static token for GitHub Enterprise reaches gh by its enterprise variable",
          "[github][credential]") {
  const auto identity = sandbox_identity(static_token("https://ghe.example.com/api/v3"));
  CHECK(value_of(identity, "GH_HOST") == "ghe.example.com");
  CHECK(value_of(identity, "GH_ENTERPRISE_TOKEN") == "ghp_static0123456789");
  CHECK(value_of(identity, "GH_TOKEN") == "ghp_static0123456789");
  const auto github = sandbox_identity(static_token());
  CHECK_FALSE(has(github, "GH_HOST"));
  CHECK_FALSE(has(github, "GH_ENTERPRISE_TOKEN"));
}
