#pragma once

// What two well-known ACP adapters need from errand beyond their endpoint and key, so that an
// operator's agent.kind "acp" with their command runs them as they are: each keeps its own
// configuration beneath /state (written at launch, as kage's is), its own sandbox is switched
// off (errand's sandbox is the boundary, and a nested one fails under the seccomp filter), and
// traffic that is not the work (telemetry, update checks, error reports) is switched off.
// They are recognised by the name of the program agent.command runs.
//
// - claude-agent-acp (Claude Code): CLAUDE_CONFIG_DIR=/state/claude with settings.json turning
//   its sandbox off, IS_SANDBOX=1 (it refuses to skip permission prompts as root otherwise),
//   and the variables that stop non-essential traffic (telemetry, updates, its plugin marketplace).
// - codex-acp: CODEX_HOME=/state/codex with a config.toml that names the session's provider
//   route as its model provider (codex reads no base-URL variable), speaking the Responses API
//   with the key from the route's credential variable, with its sandbox and approvals off.

#include "core/agent/agent_glue.hpp"

#include <string_view>

namespace errand::agent {

enum class KnownAdapter { none, claude_agent_acp, codex_acp };

// Recognised by argv[0]'s file name (a path or a name found on PATH).
KnownAdapter known_adapter(std::string_view program);

inline constexpr std::string_view claude_config_inside = "/state/claude";
inline constexpr std::string_view claude_settings_path = "claude/settings.json";
inline constexpr std::string_view codex_home_inside = "/state/codex";
inline constexpr std::string_view codex_config_path = "codex/config.toml";

// Adds the adapter's variables and files to launch. route is the session's provider route and
// model its model; a refusal says what the adapter cannot run with.
sdk::Result<void> add_adapter_setup(KnownAdapter adapter, const ProviderRoute& route,
                                    const ModelChoice& model, AgentLaunch& launch);

}  // namespace errand::agent
