#pragma once

// What each agent kind needs before its glue can be made, and what it runs when agent.command
// is left out. The glue factory (agent_glue.cpp) makes the glue; the configuration's derived
// defaults and the session manager ask here, so neither compares kind names itself. Kept apart
// from the factory so the configuration code can ask without linking every glue.
//
// The kinds: each bundled agent by its own name (bundled_agents.hpp), "kage", and "acp" for
// any other agent that speaks ACP on its stdio. Left out, agent.kind is the bundled agent that
// speaks the dialect of agent.provider's kind.

#include <string>
#include <string_view>
#include <vector>

namespace errand::agent {

inline constexpr std::string_view kage_kind = "kage";
inline constexpr std::string_view acp_kind = "acp";

// Every value agent.kind may take, in the order messages list them.
std::vector<std::string> agent_kinds();

// Whether the glue of this kind is made from the host kage's catalog, which must be asked for
// (discover_kage_providers) first.
bool kind_needs_kage_catalog(std::string_view kind);

// The command a kind runs when agent.command is left out; empty when the kind has none and the
// configuration must name one.
std::vector<std::string> default_agent_command(std::string_view kind);

// The kind agent.kind defaults to for a provider of this kind (its API dialect); empty when no
// bundled agent speaks it.
std::string default_kind_for_provider(std::string_view provider_kind);

}  // namespace errand::agent
