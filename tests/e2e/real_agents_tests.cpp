// Real ACP agents from npm (the ones errand bundles, agents/, installed by scripts/setup) run by
// the real daemon inside the bailey sandbox, behind the broker, against the fake provider: each
// runs one shell command for real and its output comes back to the thread. Beside them, the
// scripted agent taught to require ACP authenticate shows errand's side of that step in the
// thread.

#include "core/agent/known_acp_adapters.hpp"
#include "core/sessions/session_paths.hpp"
#include "tests/e2e/agent_turn.hpp"
#include "tests/e2e/e2e_harness.hpp"
#include "tests/e2e/web_session.hpp"
#include "tests/fakes/provider/shell_turn.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace errand::e2e {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Where scripts/setup installs the agents; the same variable and default as there.
fs::path agents_dir() {
  return errand::test::setting_from_environment("ERRAND_TEST_AGENTS",
                                                "/var/cache/errand-test-agents");
}

// A missing install fails the test with what to do; it is never skipped.
std::string installed_agent(const std::string& program) {
  const auto path = agents_dir() / "node_modules" / ".bin" / program;
  std::error_code ec;
  if (!fs::exists(path, ec))
    FAIL(program << " is not installed at " << path.string()
                 << ": run scripts/setup, which installs agents/ with npm (or point "
                    "ERRAND_TEST_AGENTS at such an install)");
  return path.string();
}

bool any_request_body_contains(const fakes::FakeProvider& provider, const std::string& needle) {
  for (const auto& r : provider.requests())
    if (r.body.find(needle) != npos) return true;
  return false;
}

fs::path only_session_state(const E2eHarness& h, const std::string& thread) {
  const auto sessions = h.sessions_of(thread);
  REQUIRE(sessions.size() == 1);
  return sessions::SessionPaths::of(h.state_dir(), sessions[0].session_id).state;
}

// The agents take longer than the scripted one: node starts, Claude Code loads.
constexpr auto kAgentTurn = 180s;

// The hosts the broker refused the agent, from its log lines ("CONNECT host:443 refused 403").
std::set<std::string> refused_hosts(const E2eHarness& h) {
  std::set<std::string> hosts;
  const auto log = h.daemon_log();
  for (auto at = log.find("refused 403"); at != npos; at = log.find("refused 403", at + 1)) {
    const auto line_start = log.rfind('\n', at) + 1;
    const auto connect = log.find("CONNECT ", line_start);
    if (connect == npos || connect > at) continue;
    const auto host_start = connect + 8;
    hosts.insert(log.substr(host_start, log.find(':', host_start) - host_start));
  }
  return hosts;
}

// A configuration that names only its provider: agent.kind, the command and the variables come
// from the provider's kind.
void name_only_the_provider(E2eHarness& h) {
  auto& agent = h.config()["agent"].as_object();
  for (const char* key : {"kind", "command", "baseUrlVariable"}) agent.erase(key);
  agent["providers"].as_object()["anthropic"].as_object().erase("credentialName");
  h.set("timeouts.startupMs", 120000);
}

// Starts the daemon and asks Claude Code to run kAgentShellCommand; returns the thread once the
// command's output came back to it.
std::string run_the_command(E2eHarness& h) {
  h.provider().drive_shell_command(kAgentShellCommand);
  h.start();
  const auto thread = h.post("demo: run the command for me");
  const bool reported = h.wait_for_text(
      thread, std::string(fakes::shell_report_prefix) + kAgentShellPrinted, kAgentTurn);
  INFO(h.bot_text(thread) << "\n--- daemon log ---\n" << h.daemon_log());
  REQUIRE(reported);
  return thread;
}

// Claude Code called the fake through the broker, which put the real key in place of the
// session's stand-in, and the tool result it sent back holds what the shell printed inside the
// sandbox.
void check_claude_called_with_the_key(E2eHarness& h) {
  bool called_messages = false;
  for (const auto& r : h.provider().requests()) {
    if (r.target.find("/v1/messages") == npos) continue;
    called_messages = true;
    CHECK(r.header("x-api-key") == h.provider_key());
  }
  CHECK(called_messages);
  CHECK(any_request_body_contains(h.provider(), kAgentShellPrinted));
}

}  // namespace

TEST_CASE("claude-agent-acp runs a command inside the sandbox and reports its output",
          "[e2e][real-agent]") {
  // As a configuration that names only its provider runs it: agent.kind, the command and the
  // variables come from the provider's kind, and the program from the bundled install in the
  // daemon's data directory ($XDG_DATA_HOME/errand/agents, here a link to the tests' install,
  // outside /tmp, which each sandbox has a private copy of).
  installed_agent("claude-agent-acp");
  const errand::test::TempDir data("/var/tmp", "errand-e2e-data-");
  fs::create_directories(data / "errand");
  fs::create_directory_symlink(agents_dir(), data / "errand" / "agents");
  ::chmod(data.path().c_str(), 0755);
  E2eHarness h;
  h.add_daemon_env("XDG_DATA_HOME=" + data.path().string());
  name_only_the_provider(h);
  const auto thread = run_the_command(h);
  check_claude_called_with_the_key(h);
  // The start-up report named the bundled agent and the install it found.
  const auto report = h.daemon().out();
  CHECK(report.find("agent: claude-agent-acp, the bundled agent for anthropic") != npos);
  // At its real path: the data directory's link resolved, since a sandbox shows only real paths.
  CHECK(report.find("agent program: " +
                    (agents_dir() / "node_modules/.bin/claude-agent-acp").string()) != npos);
  // errand wrote Claude Code's settings with its own sandbox off.
  const auto settings =
      errand::test::read_file(only_session_state(h, thread) / agent::claude_settings_path);
  CHECK(settings.find(R"("sandbox":{"enabled":false})") != npos);
  // Its telemetry, update check and marketplace install are off. What is left, Claude Code's
  // fetch of its plugin security list at every start, has no switch; the broker refuses it and
  // the session goes on.
  CHECK(refused_hosts(h) == std::set<std::string>{"raw.githubusercontent.com"});
  CHECK(h.stop() == 0);
}

namespace {

// Under podman and incus the agent runs from the image's own install: image/build copies the
// bundled agents into /opt/errand/agents with Debian's nodejs, as it does for the agent images
// `errand setup podman|incus` builds (scripts/setup builds the test images the same way, and
// the e2e image and golden are made from them). The configuration names only its provider.
void bundled_agent_from_the_image(Backend backend) {
  E2eHarness h(backend);
  name_only_the_provider(h);
  run_the_command(h);
  const auto report = h.daemon().out();
  CHECK(report.find("agent: claude-agent-acp, the bundled agent for anthropic") != npos);
  CHECK(report.find("agent program: /opt/errand/agents/node_modules/.bin/claude-agent-acp, the "
                    "sandbox image's own install") != npos);
  // Claude Code, not the scripted agent: it names itself in its requests.
  check_claude_called_with_the_key(h);
  const auto requests = h.provider().requests();
  CHECK(std::any_of(requests.begin(), requests.end(),
                    [](const auto& r) { return r.header("user-agent").find("claude") != npos; }));
  CHECK(h.stop() == 0);
}

}  // namespace

TEST_CASE("the bundled claude-agent-acp answers from the podman image's own install",
          "[e2e][real-agent][podman]") {
  bundled_agent_from_the_image(Backend::podman);
}

TEST_CASE("the bundled claude-agent-acp answers from the incus image's own install",
          "[e2e][real-agent][incus]") {
  bundled_agent_from_the_image(Backend::incus);
}

TEST_CASE("codex-acp runs a command inside the sandbox and reports its output",
          "[e2e][real-agent]") {
  E2eHarness h;
  h.set("agent.command", boost::json::array{installed_agent("codex-acp")});
  h.set("agent.provider", "openai");
  // codex reads no base-URL variable; the config.toml errand writes is what points it at the
  // broker, so the harness's variable is left out.
  h.config()["agent"].as_object().erase("baseUrlVariable");
  h.set("agent.providers",
        boost::json::object{
            {"openai", boost::json::object{{"kind", "openai"},
                                           {"credentialName", "OPENAI_API_KEY"},
                                           {"credential", h.provider_key()},
                                           {"baseUrl", h.provider().http_url() + "/v1"}}}});
  h.set("timeouts.startupMs", 120000);
  h.provider().drive_shell_command(kAgentShellCommand);
  h.start();
  const auto thread = h.post("demo: run the command for me");
  const bool reported = h.wait_for_text(
      thread, std::string(fakes::shell_report_prefix) + kAgentShellPrinted, kAgentTurn);
  INFO(h.bot_text(thread) << "\n--- daemon log ---\n" << h.daemon_log());
  REQUIRE(reported);
  // codex offers openai-api-key among its authMethods and the session carries OPENAI_API_KEY,
  // so errand authenticated with it before session/new.
  CHECK(h.daemon_log().find("authenticated with the agent's method openai-api-key") != npos);
  bool called_responses = false;
  for (const auto& r : h.provider().requests()) {
    if (r.target != "/v1/responses") continue;
    called_responses = true;
    CHECK(r.header("authorization") == "Bearer " + h.provider_key());
  }
  CHECK(called_responses);
  CHECK(any_request_body_contains(h.provider(), kAgentShellPrinted));
  const auto config =
      errand::test::read_file(only_session_state(h, thread) / agent::codex_config_path);
  CHECK(config.find("sandbox_mode = \"danger-full-access\"") != npos);
  CHECK(config.find("base_url = \"http://127.0.0.1:3128/provider/openai\"") != npos);
  // With its update check and analytics off, codex tried no host but its provider.
  CHECK(refused_hosts(h).empty());
  CHECK(h.stop() == 0);
}

TEST_CASE(
    "with no configuration file, a provider key in the environment starts the built-in default "
    "and its bundled agent answers from the web interface",
    "[e2e][real-agent][web]") {
  // As a newcomer runs it: no file, no ERRAND_CONFIG, only the key and the base URL a user
  // behind a gateway would set (here the fake provider's, on loopback). The agents come from
  // the data directory's bundled install, as in the case above. Both dialects in one case, one
  // after the other, since the default's port is fixed.
  struct Dialect {
    const char* agent;
    const char* key_variable;
    const char* url_variable;
    const char* url_path;  // what the variable's URL ends in, as each SDK expects it
  };
  const auto dialect =
      GENERATE(Dialect{"claude-agent-acp", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ""},
               Dialect{"codex-acp", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"});
  INFO(dialect.agent);
  installed_agent(dialect.agent);
  const errand::test::TempDir data("/var/tmp", "errand-e2e-data-");
  fs::create_directories(data / "errand");
  fs::create_directory_symlink(agents_dir(), data / "errand" / "agents");
  ::chmod(data.path().c_str(), 0755);
  E2eHarness h(Backend::bailey, Front::web_only);
  h.use_built_in_default();
  h.add_daemon_env(std::string(dialect.key_variable) + "=" + h.provider_key());
  h.add_daemon_env(std::string(dialect.url_variable) + "=" + h.provider().http_url() +
                   dialect.url_path);
  h.add_daemon_env("XDG_DATA_HOME=" + data.path().string());
  h.provider().drive_shell_command(kAgentShellCommand);
  h.start();

  const auto thread = start_web_session(h, "first", "run the command for me");
  const auto events = first_turn_events(h, thread, kAgentTurn);
  INFO(events << "\n--- daemon log ---\n" << h.daemon_log());
  REQUIRE(events.find("\"turn_end\"") != npos);
  // The shell ran inside the sandbox, in the project the default keeps in the data directory,
  // and its output reached the page.
  CHECK(events.find(kAgentShellPrinted) != npos);
  CHECK(fs::is_directory(data / "errand" / "projects" / "first"));
  // The key reached the provider (the broker swapped it in) and nowhere it was printed.
  CHECK(provider_received_real_key(h));
  const auto out = h.daemon().out();
  CHECK(out.find("starts on its built-in default: " + std::string(dialect.agent)) != npos);
  CHECK(out.find("<the value of " + std::string(dialect.key_variable) + ">") != npos);
  CHECK(out.find("web interface: open http://127.0.0.1:8787") != npos);
  CHECK(out.find(h.provider_key()) == npos);
  CHECK(h.daemon_log().find(h.provider_key()) == npos);
  CHECK(events.find(h.provider_key()) == npos);
  CHECK(h.stop() == 0);
}

TEST_CASE("an agent that requires authenticate gets it and opens the session", "[e2e]") {
  E2eHarness h;
  h.set("sandbox.env", boost::json::object{{"FAKE_AGENT_AUTH_VARIABLE", "ANTHROPIC_API_KEY"}});
  h.start();
  const auto thread = h.post("demo: say authenticated and running");
  REQUIRE(h.wait_for_text(thread, "done in"));
  INFO(h.bot_text(thread));
  CHECK(h.bot_text(thread).find("authenticated and running") != npos);
  CHECK(h.daemon_log().find("authenticated with the agent's method fake-api-key") != npos);
  CHECK(h.stop() == 0);
}

TEST_CASE("an agent's refusal to authenticate is reported in the thread in its words", "[e2e]") {
  E2eHarness h;
  h.set("sandbox.env", boost::json::object{{"FAKE_AGENT_AUTH_VARIABLE", "ANTHROPIC_API_KEY"},
                                           {"FAKE_AGENT_AUTH_REFUSAL", "this key was revoked"}});
  h.start();
  const auto thread = h.post("demo: say never shown");
  REQUIRE(h.wait_for_text(thread, "could not start"));
  const auto text = h.bot_text(thread);
  INFO(text);
  CHECK(text.find("refused to authenticate with its method fake-api-key") != npos);
  CHECK(text.find("this key was revoked") != npos);
  CHECK(text.find("never shown") == npos);
  CHECK(h.stop() == 0);
}

}  // namespace errand::e2e
