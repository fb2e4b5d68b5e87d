#include "core/agent/known_acp_adapters.hpp"

#include "common/toml/toml_text.hpp"

#include <boost/json/serialize.hpp>
#include <filesystem>

namespace errand::agent {

namespace json = boost::json;

namespace {

void set_claude_up(AgentLaunch& launch) {
  launch.env.emplace_back("CLAUDE_CONFIG_DIR", std::string(claude_config_inside));
  // Claude Code refuses to run without permission prompts as root unless it is told it is
  // inside a sandbox, which it is.
  launch.env.emplace_back("IS_SANDBOX", "1");
  // The last one stops it fetching its plugin marketplace from GitHub at start.
  for (const char* off :
       {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_AUTOUPDATER", "DISABLE_TELEMETRY",
        "DISABLE_ERROR_REPORTING", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL"})
    launch.env.emplace_back(off, "1");
  const json::object settings{{"sandbox", json::object{{"enabled", false}}}};
  launch.files.push_back({std::string(claude_settings_path), json::serialize(settings) + "\n"});
}

sdk::Result<void> set_codex_up(const ProviderRoute& route, const ModelChoice& model,
                               AgentLaunch& launch) {
  if (route.base_url.empty())
    return sdk::make_error(
        "codex-acp reads its provider endpoint from its config.toml, and "
        "agent.providers." +
            route.name +
            " has no endpoint in this session (no baseUrl, and no broker "
            "route); set baseUrl",
        sdk::Error::Kind::refused);
  if (route.credential_name.empty())
    return sdk::make_error(
        "codex-acp reads its key from the variable its config.toml names; set "
        "agent.providers." +
            route.name + ".credentialName (e.g. OPENAI_API_KEY)",
        sdk::Error::Kind::refused);
  launch.env.emplace_back("CODEX_HOME", std::string(codex_home_inside));
  std::string toml =
      "# Written by errand when the session launched; edits are replaced at the next launch.\n";
  if (!model.model.empty()) toml += "model = " + toml_text::string(model.model) + "\n";
  if (!model.thinking_level.empty())
    toml += "model_reasoning_effort = " + toml_text::string(model.thinking_level) + "\n";
  toml += "model_provider = \"errand\"\n";
  // errand's sandbox is the boundary; there is nobody at a terminal to approve.
  toml += "sandbox_mode = \"danger-full-access\"\n";
  toml += "approval_policy = \"never\"\n";
  toml += "check_for_update_on_startup = false\n";
  toml += "\n[analytics]\nenabled = false\n";
  toml += "\n[model_providers.errand]\n";
  toml += "name = " + toml_text::string(route.name) + "\n";
  toml += "base_url = " + toml_text::string(route.base_url) + "\n";
  toml += "env_key = " + toml_text::string(route.credential_name) + "\n";
  toml += "wire_api = \"responses\"\n";
  // The broker relays HTTP requests; a WebSocket upgrade to the provider is not the API asked.
  toml += "supports_websockets = false\n";
  launch.files.push_back({std::string(codex_config_path), std::move(toml)});
  return {};
}

}  // namespace

KnownAdapter known_adapter(std::string_view program) {
  const std::string name = std::filesystem::path(program).filename().string();
  if (name == "claude-agent-acp") return KnownAdapter::claude_agent_acp;
  if (name == "codex-acp") return KnownAdapter::codex_acp;
  return KnownAdapter::none;
}

sdk::Result<void> add_adapter_setup(KnownAdapter adapter, const ProviderRoute& route,
                                    const ModelChoice& model, AgentLaunch& launch) {
  switch (adapter) {
    case KnownAdapter::claude_agent_acp: set_claude_up(launch); return {};
    case KnownAdapter::codex_acp: return set_codex_up(route, model, launch);
    case KnownAdapter::none: break;
  }
  return {};
}

}  // namespace errand::agent
