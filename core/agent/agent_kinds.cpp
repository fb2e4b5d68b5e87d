#include "core/agent/agent_kinds.hpp"

#include "core/agent/bundled_agents.hpp"
#include "core/agent/kage_glue.hpp"

namespace errand::agent {

std::vector<std::string> agent_kinds() {
  std::vector<std::string> kinds;
  for (const auto& bundled : bundled_agents()) kinds.emplace_back(bundled.kind);
  kinds.emplace_back(kage_kind);
  kinds.emplace_back(acp_kind);
  return kinds;
}

bool kind_needs_kage_catalog(std::string_view kind) {
  return kind == kage_kind;
}

std::vector<std::string> default_agent_command(std::string_view kind) {
  if (kind == kage_kind) return {std::string(kage_default_program), "rpc"};
  // The bare name: the daemon finds it in the bundled installs first (bundled_agents.hpp).
  if (const auto* bundled = bundled_agent(kind)) return {std::string(bundled->kind)};
  return {};
}

std::string default_kind_for_provider(std::string_view provider_kind) {
  const auto* bundled = bundled_agent_for_provider_kind(provider_kind);
  return bundled != nullptr ? std::string(bundled->kind) : std::string();
}

}  // namespace errand::agent
