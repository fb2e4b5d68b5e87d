// A session's GitHub identity through the real daemon, the real bailey sandbox and the real git:
// the agent pushes over http with the App token errand minted for it, through the broker, to a
// bare repository the fake GitHub serves with `git http-backend`; the token is renewed while the
// session runs; !pr opens a pull request with it; and no token reaches the thread or the log.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/fakes/github/fake_github.hpp"

#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <fstream>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

constexpr std::string_view kAppId = "4242";
constexpr std::string_view kInstallation = "777";

std::filesystem::path write_private_file(const std::filesystem::path& path, const std::string& text,
                                         mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
  return path;
}

// The harness's daemon reaches the fake's API on 127.0.0.2 directly (GitHub is called from the
// host), and its sessions reach the fake's git listener through the broker.
struct GithubScenario {
  fakes::FakeGithub github;
  fakes::TestAppKey key = fakes::make_test_app_key();
  E2eHarness h;

  GithubScenario() {
    github.add_app(std::string(kAppId), key.public_key_pem);
    github.add_installation(std::string(kInstallation), std::string(kAppId));
    github.create_repository("acme", "widgets");
    h.set("sandbox.egress.allow", json::array{"127.0.0.2"});
    h.set("sandbox.egressPorts", json::array{443, github.git_port()});
  }

  void use_app(mode_t key_mode = 0600) {
    const auto key_file =
        write_private_file(h.root() / "github-app.pem", key.private_key_pem, key_mode);
    h.set("github", json::object{{"userName", "errand-e2e"},
                                 {"userEmail", "errand-e2e@example.com"},
                                 {"apiBase", github.api_url()},
                                 {"caFile", github.ca_file().string()},
                                 {"app", json::object{{"appId", kAppId},
                                                      {"installationId", kInstallation},
                                                      {"privateKeyPath", key_file.string()}}}});
  }

  // Every token the fake handed out, none of which may be in what errand wrote.
  void check_no_token_in(const std::string& text) const {
    for (const auto& minted : github.minted_tokens()) {
      INFO("token " << minted.token.substr(0, 8) << "…");
      CHECK(text.find(minted.token) == npos);
    }
  }
};

std::string first_push_script(const std::string& url) {
  return "run cd /workspace && git init -q -b main && git remote add origin " + url +
         " && echo base > README && git add README && git commit -qm base"
         " && git push -q origin main && git checkout -q -b errand-change"
         " && echo hello > hello.txt && git add hello.txt && git commit -qm 'add hello'"
         " && git push -q origin errand-change && echo pushed-the-branch";
}

TEST_CASE(
    "the agent pushes with the App token errand minted, the token is renewed, !pr opens a pull "
    "request, and no token reaches the thread or the log",
    "[e2e][key:github.app.appId][key:github.app.installationId][key:github.app.privateKeyPath]"
    "[key:github.apiBase][key:github.caFile][key:github.userName][key:github.userEmail]") {
  GithubScenario s;
  // A short life, so the daemon renews within the test: it asks a quarter of the lifetime early.
  s.github.set_token_lifetime(40s);
  s.use_app();
  s.h.start();

  const auto thread = s.h.post(first_push_script(s.github.git_url("acme", "widgets")));
  REQUIRE(s.h.wait_for_text(thread, "done in", 120s));
  INFO(s.h.bot_text(thread));
  REQUIRE(s.h.bot_text(thread).find("pushed-the-branch") != npos);
  REQUIRE(s.github.minted_tokens().size() >= 1);
  // The commit carries the configured identity, set for git in the session's environment.
  s.h.post("run cd /workspace && git log -1 --format='author: %an <%ae>'", thread);
  REQUIRE(s.h.wait_for_text(thread, "author: errand-e2e <errand-e2e@example.com>"));

  // The agent can read its token, but what it prints of it is scrubbed.
  s.h.post("run echo token-is: $(cat /state/github/token)", thread);
  REQUIRE(s.h.wait_for_text(thread, "token-is: [redacted]"));

  // Renewal: a second token is minted while the session runs, then the fake's clock moves past
  // the first token's expiry, so only the renewed token can push.
  REQUIRE(eventually([&] { return s.github.minted_tokens().size() >= 2; }, 90s));
  s.github.advance_clock(35s);
  s.h.post(
      "run cd /workspace && echo more >> hello.txt && git commit -qam more"
      " && git push -q origin errand-change && echo pushed-again",
      thread);
  REQUIRE(s.h.wait_for_text(thread, "pushed-again", 90s));

  s.h.post("!pr Add a greeting", thread);
  if (!s.h.wait_for_text(thread, "opened pull request #")) FAIL(s.h.bot_text(thread));
  const auto pulls = s.github.pull_requests();
  REQUIRE(pulls.size() == 1);
  CHECK(pulls[0].title == "Add a greeting");
  CHECK(pulls[0].head == "errand-change");
  CHECK(pulls[0].base == "main");
  CHECK(s.h.bot_text(thread).find(pulls[0].html_url) != npos);
  const auto minted = s.github.minted_tokens();
  CHECK(std::any_of(minted.begin(), minted.end(),
                    [&](const auto& t) { return t.token == pulls[0].token; }));

  // !stop revokes the token the session held: GitHub stops honouring it now, not at its expiry.
  s.h.post("!stop", thread);
  REQUIRE(eventually(
      [&] {
        const auto now = s.github.minted_tokens();
        return std::any_of(now.begin(), now.end(), [](const auto& t) { return t.revoked; });
      },
      30s));
  const auto after = s.github.minted_tokens();
  const auto held = std::find_if(after.begin(), after.end(),
                                 [&](const auto& t) { return t.token == pulls[0].token; });
  REQUIRE(held != after.end());
  CHECK(held->revoked);
  // The fake marks the token revoked when the request arrives; the daemon logs it once the
  // answer is back, a moment later (seen missing once, checked at once).
  CHECK(eventually(
      [&] { return s.h.daemon_log().find("its GitHub App token was revoked") != npos; }, 10s));

  s.check_no_token_in(s.h.bot_text(thread));
  s.check_no_token_in(s.h.daemon_log());
}

TEST_CASE("!pr before anything was pushed is refused with the reason", "[e2e]") {
  GithubScenario s;
  s.use_app();
  s.h.start();
  const auto thread = s.h.post(
      "run cd /workspace && git init -q -b lonely && git remote add "
      "origin " +
      s.github.git_url("acme", "widgets") + " && echo ready");
  REQUIRE(s.h.wait_for_text(thread, "done in", 120s));
  s.h.post("!pr Nothing here", thread);
  REQUIRE(s.h.wait_for_text(thread, "!pr was refused"));
  INFO(s.h.bot_text(thread));
  CHECK(s.h.bot_text(thread).find("lonely") != npos);
  CHECK(s.github.pull_requests().empty());
}

TEST_CASE("an installation GitHub refuses stops the session's start with GitHub's reason",
          "[e2e]") {
  GithubScenario s;
  s.github.set_refuse_installation(std::string(kInstallation), 404, "Not Found");
  s.use_app();
  s.h.start();
  const auto thread = s.h.post("say never");
  REQUIRE(s.h.wait_for_text(thread, "could not start", 60s));
  INFO(s.h.bot_text(thread));
  CHECK(s.h.bot_text(thread).find("installation token") != npos);
  CHECK(s.h.bot_text(thread).find("404") != npos);
  CHECK(s.h.bot_text(thread).find("never") == npos);
}

TEST_CASE("an App key others may read stops the daemon at start with the reason", "[e2e]") {
  GithubScenario s;
  s.use_app(0644);
  const auto code = s.h.start_expecting_refusal();
  REQUIRE(code.has_value());
  CHECK(*code == 2);
  INFO(s.h.daemon_log());
  CHECK(s.h.daemon_log().find("github-app.pem") != npos);
  CHECK(s.h.daemon_log().find("chmod 600") != npos);
}

// Every backend carries the static token's identity: the variables, by name (never on a host
// command line another account could read), and the credential helper, which answers for the
// GitHub host alone.
void static_token_scenario(Backend backend) {
  fakes::FakeGithub github;
  E2eHarness h(backend);
  const auto token = unique_secret("ghp_e2e_static_");
  h.set("github", json::object{{"token", token},
                               {"userName", "errand-e2e"},
                               {"userEmail", "errand-e2e@example.com"},
                               {"apiBase", github.api_url()},
                               {"caFile", github.ca_file().string()}});
  h.start();
  const auto helper = std::string("sh /state/github/git-credential get");
  const auto thread = h.post(
      "run printf 'protocol=http\\nhost=127.0.0.2:9\\n\\n' | " + helper +
      "; printf 'protocol=https\\nhost=example.com\\n\\n' | " + helper +
      "; echo helper-done; echo token: $GH_TOKEN; env | grep ^GIT_CONFIG_; sleep 3; echo slept");
  REQUIRE(eventually([&] { return h.bot_text(thread).find("helper-done") != npos; }, 180s));
  CHECK(processes_with(token).empty());
  REQUIRE(h.wait_for_text(thread, "done in", 60s));
  INFO(h.bot_text(thread));
  const auto text = h.bot_text(thread);
  CHECK(text.find("username=x-access-token") != npos);
  // Once, for the GitHub host; example.com got nothing.
  CHECK(h.count_text(thread, "password=[redacted]") == 1);
  CHECK(text.find("token: [redacted]") != npos);
  CHECK(text.find("errand-e2e@example.com") != npos);
  CHECK(text.find(token) == npos);
  CHECK(h.daemon_log().find(token) == npos);
}

TEST_CASE("a static GitHub token reaches a bailey session by name, with its credential helper",
          "[e2e][key:github.token]") {
  static_token_scenario(Backend::bailey);
}

TEST_CASE("a static GitHub token reaches a podman session by name, with its credential helper",
          "[e2e][podman]") {
  static_token_scenario(Backend::podman);
}

TEST_CASE("a static GitHub token reaches an incus session by name, with its credential helper",
          "[e2e][incus]") {
  static_token_scenario(Backend::incus);
}

}  // namespace
}  // namespace errand::e2e
