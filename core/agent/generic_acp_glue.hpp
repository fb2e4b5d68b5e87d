#pragma once

// Any other agent that speaks ACP on its stdio (agent.kind "acp"): its command line is
// agent.command, and it learns its provider from two variables the configuration names,
// agent.baseUrlVariable for the endpoint and agent.credentialVariable for the key (when absent,
// the provider's own credentialName carries it).

#include "core/agent/agent_glue.hpp"

namespace errand::agent {

class GenericAcpGlue final : public AgentGlue {
 public:
  std::string_view kind() const noexcept override { return "acp"; }
  void check(const boost::json::object& config, sdk::ConfigProblems& problems) const override;
  sdk::Result<AgentLaunch> prepare(const LaunchInputs& inputs) const override;
};

}  // namespace errand::agent
