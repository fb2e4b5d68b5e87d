// The bundled agents: where their installs are looked for, and a bundled kind's launch, which
// runs the install found there by its absolute path on the host, or the image's install where
// the backend runs the agent from its image.

#include "core/agent/agent_glue.hpp"
#include "core/agent/bundled_agents.hpp"
#include "core/agent/generic_acp_glue.hpp"
#include "core/agent/program_location.hpp"
#include "core/agent/provider_routes.hpp"
#include "core/daemon/agent_install_report.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>

using namespace errand::agent;
using Catch::Matchers::ContainsSubstring;
using errand::test::ScopedEnv;
using errand::test::TempDir;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// An npm-shaped install under root: the bin link to the package's script, as npm makes it.
fs::path plant_install(const fs::path& root, const std::string& program) {
  const auto package = root / "node_modules" / "@zed-industries" / program / "dist";
  fs::create_directories(package);
  errand::test::write_file(package / "index.js", "#!/usr/bin/env node\n");
  ::chmod((package / "index.js").c_str(), 0755);
  fs::create_directories(bundled_bin_dir(root));
  fs::create_symlink("../@zed-industries/" + program + "/dist/index.js",
                     bundled_bin_dir(root) / program);
  return bundled_bin_dir(root) / program;
}

json::object claude_config() {
  return {{"agent", json::parse(R"({
            "kind": "claude-agent-acp", "command": ["claude-agent-acp"],
            "baseUrlVariable": "ANTHROPIC_BASE_URL", "provider": "anthropic",
            "providers": {"anthropic": {"kind": "anthropic", "credential": "sk-real",
                                        "credentialName": "ANTHROPIC_API_KEY"}}})")
                        .as_object()},
          {"sandbox", json::object{{"egress", json::object{{"mode", "proxy"}}}}}};
}

errand::sdk::BrokerSession broker() {
  errand::sdk::BrokerSession session;
  session.proxy_credential = "errand-session-" + std::string(64, '1');
  session.stand_ins["anthropic"] = {"ANTHROPIC_API_KEY", "errand-session-" + std::string(64, '2')};
  return session;
}

}  // namespace

TEST_CASE("the bundled installs are looked for in the account's data directory, then /opt",
          "[agent][bundled]") {
  CHECK(bundled_agent_roots("/data", "/home/u") ==
        std::vector<fs::path>{"/data/errand/agents", "/opt/errand/agents"});
  CHECK(bundled_agent_roots(nullptr, "/home/u") ==
        std::vector<fs::path>{"/home/u/.local/share/errand/agents", "/opt/errand/agents"});
  // XDG: a relative XDG_DATA_HOME is ignored; so is a HOME that is not absolute.
  CHECK(bundled_agent_roots("data", "/home/u") ==
        std::vector<fs::path>{"/home/u/.local/share/errand/agents", "/opt/errand/agents"});
  CHECK(bundled_agent_roots(nullptr, "") == std::vector<fs::path>{"/opt/errand/agents"});
}

TEST_CASE("the first root that holds the program wins; one that is not executable is passed",
          "[agent][bundled]") {
  TempDir dir;
  const auto* claude = bundled_agent("claude-agent-acp");
  REQUIRE(claude != nullptr);
  const std::vector<fs::path> roots{dir / "first", dir / "second"};
  CHECK_FALSE(find_bundled_program(*claude, roots));
  const auto second = plant_install(roots[1], "claude-agent-acp");
  CHECK(find_bundled_program(*claude, roots) == second);
  const auto first = plant_install(roots[0], "claude-agent-acp");
  CHECK(find_bundled_program(*claude, roots) == first);
  ::chmod(fs::canonical(first).c_str(), 0644);
  CHECK(find_bundled_program(*claude, roots) == second);
  CHECK_FALSE(find_bundled_program(*bundled_agent("codex-acp"), roots));
}

TEST_CASE("each provider dialect has its bundled agent, and each agent its kind",
          "[agent][bundled]") {
  REQUIRE(bundled_agent_for_provider_kind("anthropic") != nullptr);
  CHECK(bundled_agent_for_provider_kind("anthropic")->kind == "claude-agent-acp");
  REQUIRE(bundled_agent_for_provider_kind("openai") != nullptr);
  CHECK(bundled_agent_for_provider_kind("openai")->kind == "codex-acp");
  CHECK(bundled_agent_for_provider_kind("gemini") == nullptr);
  CHECK(bundled_agents_named() == "claude-agent-acp (anthropic), codex-acp (openai)");
}

TEST_CASE("a bundled kind on the host runs the install in the account's data directory",
          "[agent][bundled][key:agent.kind]") {
  TempDir dir;
  const auto program = plant_install(dir / "data" / "errand" / "agents", "claude-agent-acp");
  // As the daemon reads it, from its environment.
  ScopedEnv data("XDG_DATA_HOME", (dir / "data").c_str());
  const auto config = claude_config();
  const auto session = broker();
  // PATH holds nothing of the agent's: the bundled install is looked for first, not on PATH.
  LaunchInputs inputs{&config, provider_routes(config, &session), "", "", true, "/usr/bin:/bin"};
  inputs.home = dir / "home";
  GenericAcpGlue glue(bundled_agent("claude-agent-acp"));
  CHECK(glue.kind() == "claude-agent-acp");
  auto launch = glue.prepare(inputs);
  REQUIRE(launch);
  CHECK(launch->argv.front() == program.string());
  // The npm tree is granted whole: the outermost node_modules holds the script's dependencies.
  CHECK(std::find(launch->agent_dirs.begin(), launch->agent_dirs.end(),
                  dir / "data" / "errand" / "agents" / "node_modules") != launch->agent_dirs.end());
  // And it is set up as claude-agent-acp is, whatever directory it came from.
  const auto is_sandbox = std::find(launch->env.begin(), launch->env.end(),
                                    std::pair<std::string, std::string>{"IS_SANDBOX", "1"});
  CHECK(is_sandbox != launch->env.end());
}

TEST_CASE("a bundled kind under an image backend runs the image's install by its full path",
          "[agent][bundled]") {
  const auto config = claude_config();
  const auto session = broker();
  LaunchInputs inputs{&config, provider_routes(config, &session), "", "", false, ""};
  auto launch = GenericAcpGlue(bundled_agent("claude-agent-acp")).prepare(inputs);
  REQUIRE(launch);
  CHECK(launch->argv.front() == "/opt/errand/agents/node_modules/.bin/claude-agent-acp");
  CHECK(launch->agent_dirs.empty());
}

TEST_CASE("a bundled agent not installed is named with the command that installs it",
          "[agent][bundled]") {
  TempDir dir;
  ScopedEnv path("PATH", "/usr/bin:/bin");
  const auto config = claude_config();
  const std::vector<fs::path> roots{dir / "data" / "errand" / "agents", dir / "opt"};
  const auto report =
      errand::daemon::agent_install_report(config, dir / "config.json", true, roots);
  REQUIRE(report);
  CHECK_THAT(*report, ContainsSubstring("agent: claude-agent-acp, the bundled agent for "
                                        "anthropic providers"));
  CHECK_THAT(*report, ContainsSubstring("is not installed"));
  CHECK_THAT(*report, ContainsSubstring((dir / "data" / "errand" / "agents").string()));
  CHECK_THAT(*report, ContainsSubstring((dir / "opt").string()));
  CHECK_THAT(*report, ContainsSubstring("sudo errand setup bailey"));

  const auto image = errand::daemon::agent_install_report(config, dir / "config.json", false);
  REQUIRE(image);
  CHECK_THAT(*image, ContainsSubstring("/opt/errand/agents/node_modules/.bin/claude-agent-acp, "
                                       "the sandbox image's own install"));
}

TEST_CASE("an agent script whose interpreter is missing is named with what to install",
          "[agent][bundled]") {
  TempDir dir;
  const auto config = claude_config();
  const auto session = broker();
  const auto program = plant_install(dir / "agents", "claude-agent-acp");
  // The npm install is there, node is not on the daemon's PATH.
  LaunchInputs inputs{&config, provider_routes(config, &session), "", "", true, "/nonexistent"};
  inputs.bundled_roots = {dir / "agents"};
  inputs.home = dir / "home";
  const auto refused = GenericAcpGlue(bundled_agent("claude-agent-acp")).prepare(inputs);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == errand::sdk::Error::Kind::not_found);
  CHECK_THAT(refused.error().message,
             ContainsSubstring(program.string() + " is a script run by node, which is not "
                                                  "installed on this host"));
  CHECK_THAT(refused.error().message, ContainsSubstring("sudo apt install nodejs"));

  // With node on the PATH the same install launches.
  inputs.search_path = "/usr/bin:/bin";
  CHECK(GenericAcpGlue(bundled_agent("claude-agent-acp")).prepare(inputs));
}

TEST_CASE("a script's interpreter is looked for as the kernel and env would look for it",
          "[agent]") {
  TempDir dir;
  const auto script = [&](const std::string& name, const std::string& first_line) {
    errand::test::write_file(dir / name, first_line + "\nexit 0\n");
    return dir / name;
  };
  CHECK_FALSE(missing_interpreter(script("plain", "echo not a script"), "/usr/bin"));
  CHECK_FALSE(missing_interpreter(script("sh", "#!/bin/sh -e"), ""));
  CHECK(missing_interpreter(script("gone", "#!/opt/nowhere/python3"), "/usr/bin") ==
        "/opt/nowhere/python3");
  CHECK_FALSE(missing_interpreter(script("env", "#!/usr/bin/env sh"), "/usr/bin:/bin"));
  CHECK(missing_interpreter(script("env-missing", "#!/usr/bin/env node"), "/nonexistent") ==
        "node");
  // env's options and assignments come before the program it runs.
  CHECK(missing_interpreter(script("env-s", "#!/usr/bin/env -S A=1 errand-no-such-interpreter -x"),
                            "/usr/bin:/bin") == "errand-no-such-interpreter");
  CHECK_FALSE(missing_interpreter(script("env-s-found", "#!/usr/bin/env -S A=1 sh -e"), "/bin"));
}
