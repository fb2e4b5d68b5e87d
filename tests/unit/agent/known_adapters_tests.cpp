// What errand sets up for the ACP adapters it knows by name (claude-agent-acp, codex-acp), and
// the host directories an npm-installed agent needs granted.

#include "core/agent/generic_acp_glue.hpp"
#include "core/agent/known_acp_adapters.hpp"
#include "core/agent/program_location.hpp"
#include "core/agent/provider_routes.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand::agent;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

json::object adapter_config_with(const char* agent_json) {
  return {{"agent", json::parse(agent_json).as_object()},
          {"sandbox", json::object{{"egress", json::object{{"mode", "proxy"}}}}}};
}

errand::sdk::Result<AgentLaunch> prepare(const json::object& config, bool brokered = true) {
  errand::sdk::BrokerSession broker;
  broker.proxy_credential = "errand-session-" + std::string(64, '1');
  const auto& providers = config.at("agent").at("providers").as_object();
  for (const auto& entry : providers)
    broker.stand_ins[std::string(entry.key())] = {
        std::string(entry.value().as_object().at("credentialName").as_string()),
        "errand-session-" + std::string(64, '2')};
  GenericAcpGlue glue;
  LaunchInputs inputs{&config, provider_routes(config, brokered ? &broker : nullptr), "", "", false,
                      ""};
  return glue.prepare(inputs);
}

std::string value_of(const AgentLaunch& launch, const std::string& name) {
  for (const auto& [n, v] : launch.env)
    if (n == name) return v;
  return "<unset>";
}

const StateFile* file_named(const AgentLaunch& launch, std::string_view path) {
  for (const auto& f : launch.files)
    if (f.relative_path == fs::path(path)) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("adapters are known by the file name of the program that runs them") {
  CHECK(known_adapter("/opt/a/node_modules/.bin/claude-agent-acp") ==
        KnownAdapter::claude_agent_acp);
  CHECK(known_adapter("codex-acp") == KnownAdapter::codex_acp);
  CHECK(known_adapter("/usr/bin/my-agent") == KnownAdapter::none);
  CHECK(known_adapter("claude-agent-acp-wrapper") == KnownAdapter::none);
}

TEST_CASE("claude-agent-acp gets its config directory with its sandbox off, and quiet") {
  const auto launch = prepare(adapter_config_with(R"({
    "kind": "acp", "command": ["/opt/agents/node_modules/.bin/claude-agent-acp"],
    "provider": "anthropic", "baseUrlVariable": "ANTHROPIC_BASE_URL",
    "providers": {"anthropic": {"credential": "sk-real", "credentialName": "ANTHROPIC_API_KEY"}}})"));
  REQUIRE(launch);
  CHECK(value_of(*launch, "ANTHROPIC_BASE_URL") == "http://127.0.0.1:3128/provider/anthropic");
  CHECK(value_of(*launch, "CLAUDE_CONFIG_DIR") == "/state/claude");
  CHECK(value_of(*launch, "IS_SANDBOX") == "1");
  for (const char* off :
       {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_AUTOUPDATER", "DISABLE_TELEMETRY",
        "DISABLE_ERROR_REPORTING", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL"})
    CHECK(value_of(*launch, off) == "1");
  const auto* settings = file_named(*launch, claude_settings_path);
  REQUIRE(settings != nullptr);
  CHECK(json::parse(settings->content).at("sandbox").at("enabled") == false);
}

TEST_CASE("codex-acp gets a config.toml naming the session's route as its provider") {
  const auto launch = prepare(adapter_config_with(R"({
    "kind": "acp", "command": ["codex-acp"], "provider": "openai", "model": "gpt-test:high",
    "providers": {"openai": {"kind": "openai", "credential": "sk-real",
                             "credentialName": "OPENAI_API_KEY",
                             "baseUrl": "https://api.example.test/v1"}}})"));
  REQUIRE(launch);
  CHECK(value_of(*launch, "CODEX_HOME") == "/state/codex");
  CHECK(value_of(*launch, "OPENAI_API_KEY").starts_with("errand-session-"));
  const auto* config = file_named(*launch, codex_config_path);
  REQUIRE(config != nullptr);
  const auto& toml = config->content;
  INFO(toml);
  CHECK(toml.find("model = \"gpt-test\"\n") != npos);
  CHECK(toml.find("model_reasoning_effort = \"high\"\n") != npos);
  CHECK(toml.find("model_provider = \"errand\"\n") != npos);
  CHECK(toml.find("sandbox_mode = \"danger-full-access\"\n") != npos);
  CHECK(toml.find("approval_policy = \"never\"\n") != npos);
  CHECK(toml.find("check_for_update_on_startup = false\n") != npos);
  CHECK(toml.find("[analytics]\nenabled = false\n") != npos);
  CHECK(toml.find("[model_providers.errand]\n") != npos);
  // The broker's relay, never the real endpoint or key.
  CHECK(toml.find("base_url = \"http://127.0.0.1:3128/provider/openai\"\n") != npos);
  CHECK(toml.find("api.example.test") == npos);
  CHECK(toml.find("sk-real") == npos);
  CHECK(toml.find("env_key = \"OPENAI_API_KEY\"\n") != npos);
  CHECK(toml.find("wire_api = \"responses\"\n") != npos);
}

TEST_CASE("codex-acp without a reachable endpoint is refused, saying what to set") {
  const auto launch = prepare(adapter_config_with(R"({
    "kind": "acp", "command": ["codex-acp"], "provider": "openai",
    "providers": {"openai": {"kind": "openai", "credential": "sk-real",
                             "credentialName": "OPENAI_API_KEY"}}})"),
                              false);
  REQUIRE_FALSE(launch);
  CHECK(launch.error().message.find("codex-acp reads its provider endpoint") != npos);
  CHECK(launch.error().message.find("set baseUrl") != npos);
}

TEST_CASE("an unknown ACP agent gets no adapter files or variables") {
  const auto launch = prepare(adapter_config_with(R"({
    "kind": "acp", "command": ["my-agent"], "provider": "anthropic",
    "providers": {"anthropic": {"credential": "sk-real", "credentialName": "ANTHROPIC_API_KEY"}}})"));
  REQUIRE(launch);
  CHECK(launch->files.empty());
  CHECK(launch->env.size() == 1);
}

TEST_CASE("an npm-installed agent's whole node_modules tree is granted") {
  errand::test::TempDir dir;
  const auto tree = dir.path() / "agents" / "node_modules";
  const auto script = tree / "@scope" / "agent" / "dist" / "index.js";
  fs::create_directories(script.parent_path());
  fs::create_directories(tree / ".bin");
  errand::test::write_file(script, "#!/usr/bin/env node\n");
  fs::permissions(script, fs::perms::owner_all);
  fs::create_symlink("../@scope/agent/dist/index.js", tree / ".bin" / "agent");

  const auto found = find_program("agent", (tree / ".bin").string());
  REQUIRE(found);
  const auto dirs = install_directories(*found);
  CHECK(dirs == std::vector<fs::path>{tree / ".bin", script.parent_path(), tree});

  // A program outside any node_modules gets its own directories only.
  const auto plain = dir.path() / "bin" / "tool";
  fs::create_directories(plain.parent_path());
  errand::test::write_file(plain, "#!/bin/sh\n");
  fs::permissions(plain, fs::perms::owner_all);
  CHECK(install_directories(plain) == std::vector<fs::path>{plain.parent_path()});
}
