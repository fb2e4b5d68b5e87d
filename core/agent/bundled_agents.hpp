#pragma once

// The ACP agents errand ships pinned (agents/package-lock.json, installed with errand as
// share/errand/agents) and `errand setup` installs with npm: one for each provider dialect, so a
// configuration that names only its provider has an agent that runs. Each is also an agent.kind
// of its own, whose command and variables errand knows, and whose program is the npm package's
// bin link of the same name.
//
// Where an install is looked for, in order: the daemon account's own data directory
// ($XDG_DATA_HOME, else ~/.local/share, then errand/agents), where a run without setup puts it,
// then the system one, /opt/errand/agents, where `errand setup` puts it and where the podman and
// Incus images carry it.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace errand::agent {

struct BundledAgent {
  std::string_view kind;                 // the agent.kind naming it; also its program's name
  std::string_view package;              // its npm package
  std::string_view provider_kind;        // the provider dialect it speaks (agent.providers.*.kind)
  std::string_view base_url_variable;    // empty: it reads none (codex takes its config.toml's)
  std::string_view credential_variable;  // what a provider of its dialect is read from by default
};

std::span<const BundledAgent> bundled_agents();
const BundledAgent* bundled_agent(std::string_view kind);
const BundledAgent* bundled_agent_for_provider_kind(std::string_view provider_kind);
// "claude-agent-acp (anthropic), codex-acp (openai)": for messages that list them.
std::string bundled_agents_named();

// The system-wide install: `errand setup` writes it, the images carry it.
inline constexpr std::string_view system_agents_root = "/opt/errand/agents";

// The install roots looked in, in order, from the daemon's environment (either may be null).
std::vector<std::filesystem::path> bundled_agent_roots(const char* xdg_data_home, const char* home);
std::vector<std::filesystem::path> bundled_agent_roots_of_process();

// The directory of an install root's program links (node_modules/.bin).
std::filesystem::path bundled_bin_dir(const std::filesystem::path& root);

// The first root whose bin directory holds the agent's program, as that program's path.
std::optional<std::filesystem::path> find_bundled_program(
    const BundledAgent& agent, std::span<const std::filesystem::path> roots);

}  // namespace errand::agent
